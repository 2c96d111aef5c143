	.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
	.amdhsa_code_object_version 5
	.text
	.globl	group_product
	.p2align	8
	.type	group_product,@function
group_product:
	s_load_dwordx4 s[4:7], s[2:3], 0x0
	s_load_dwordx2 s[8:9], s[2:3], 0x10
	s_load_dword s10, s[0:1], 0x4
	v_and_b32_e32 v16, 0x3ff, v0
	v_lshlrev_b32_e32 v10, 2, v16
	v_mov_b32_e32 v2, 0
	v_lshlrev_b32_e32 v1, 4, v16
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_u32_e32 vcc, s8, v10
	v_mov_b32_e32 v3, v2
	v_mov_b32_e32 v4, v2
	v_mov_b32_e32 v5, v2
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_2
	global_load_dwordx4 v[2:5], v1, s[4:5]
.LBB0_2:
	s_or_b64 exec, exec, s[2:3]
	s_and_b32 s26, 0xffff, s10
	s_lshl_b32 s27, s26, 2
	s_movk_i32 s2, 0x1800
	v_sub_u32_e32 v6, 0x1800, v10
	v_add_u32_e32 v17, s27, v10
	v_cmp_lt_u32_e32 vcc, s27, v6
	v_cmp_gt_u32_e64 s[2:3], s2, v17
	s_and_b64 s[2:3], vcc, s[2:3]
	s_and_saveexec_b64 s[10:11], s[2:3]
	s_cbranch_execz .LBB0_16
	v_mov_b32_e32 v6, 0
	v_lshlrev_b32_e32 v11, 2, v17
	v_cmp_gt_u32_e32 vcc, s8, v17
	v_mov_b32_e32 v7, v6
	v_mov_b32_e32 v8, v6
	v_mov_b32_e32 v9, v6
	s_and_saveexec_b64 s[12:13], vcc
	s_cbranch_execz .LBB0_5
	global_load_dwordx4 v[6:9], v11, s[4:5]
.LBB0_5:
	s_or_b64 exec, exec, s[12:13]
	v_sub_u32_e32 v12, 0x1800, v17
	s_movk_i32 s28, 0x1800
	v_cmp_lt_u32_e32 vcc, s27, v12
	s_and_saveexec_b64 s[12:13], vcc
	s_cbranch_execz .LBB0_15
	v_add_lshl_u32 v12, v16, s26, 2
	s_waitcnt vmcnt(0)
	v_mov_b64_e32 v[24:25], v[8:9]
	v_mov_b64_e32 v[28:29], v[4:5]
	v_sub_u32_e32 v19, 0x1800, v12
	v_lshl_add_u32 v20, s26, 3, v10
	s_lshl_b32 s30, s26, 5
	s_lshl_b32 s29, s26, 4
	s_mov_b64 s[14:15], 0
	v_mov_b32_e32 v10, 0
	v_mov_b64_e32 v[22:23], v[6:7]
	v_mov_b32_e32 v30, v11
	v_mov_b64_e32 v[26:27], v[2:3]
	v_mov_b32_e32 v11, v1
	s_branch .LBB0_9
.LBB0_7:
	s_or_b64 exec, exec, s[24:25]
	v_subrev_u32_e32 v19, s27, v19
	v_cmp_ge_u32_e32 vcc, s27, v19
	v_add_u32_e32 v17, s27, v17
	s_andn2_b64 s[20:21], s[20:21], exec
	s_and_b64 s[24:25], vcc, exec
	v_lshlrev_b32_e32 v21, 2, v17
	v_add_u32_e32 v20, s27, v20
	v_add_u32_e32 v1, s29, v1
	s_andn2_b64 s[18:19], s[18:19], exec
	s_or_b64 s[20:21], s[20:21], s[24:25]
.LBB0_8:
	s_or_b64 exec, exec, s[22:23]
	s_and_b64 s[22:23], exec, s[20:21]
	v_mov_b64_e32 v[6:7], v[22:23]
	s_or_b64 s[14:15], s[22:23], s[14:15]
	v_mov_b64_e32 v[8:9], v[24:25]
	v_mov_b64_e32 v[2:3], v[26:27]
	v_mov_b64_e32 v[4:5], v[28:29]
	s_andn2_b64 s[16:17], s[16:17], exec
	s_and_b64 s[22:23], s[18:19], exec
	s_waitcnt vmcnt(0)
	v_mov_b64_e32 v[24:25], v[14:15]
	v_mov_b64_e32 v[28:29], v[8:9]
	v_mov_b32_e32 v11, v30
	s_or_b64 s[16:17], s[16:17], s[22:23]
	v_mov_b64_e32 v[22:23], v[12:13]
	v_mov_b32_e32 v30, v21
	v_mov_b64_e32 v[26:27], v[6:7]
	s_andn2_b64 exec, exec, s[14:15]
	s_cbranch_execz .LBB0_12
.LBB0_9:
	v_mov_b32_e32 v18, v11
	v_cmp_gt_u32_e32 vcc, s28, v20
	s_or_b64 s[18:19], s[18:19], exec
	s_or_b64 s[20:21], s[20:21], exec
	s_and_saveexec_b64 s[22:23], vcc
	s_cbranch_execz .LBB0_8
	v_mov_b32_e32 v12, v10
	v_mov_b32_e32 v13, v10
	v_mov_b32_e32 v11, v10
	v_mov_b64_e32 v[14:15], v[12:13]
	v_cmp_gt_u32_e32 vcc, s8, v20
	v_mov_b64_e32 v[12:13], v[10:11]
	ds_write_b128 v18, v[26:29]
	s_and_saveexec_b64 s[24:25], vcc
	s_cbranch_execz .LBB0_7
	v_add_u32_e32 v2, s30, v1
	global_load_dwordx4 v[12:15], v2, s[4:5]
	s_branch .LBB0_7
.LBB0_12:
	s_or_b64 exec, exec, s[14:15]
	s_xor_b64 s[4:5], s[16:17], -1
	s_and_saveexec_b64 s[14:15], s[4:5]
	s_xor_b64 s[4:5], exec, s[14:15]
	v_mov_b64_e32 v[2:3], v[6:7]
	v_add_u32_e32 v1, s29, v1
	v_mov_b64_e32 v[4:5], v[8:9]
	v_mov_b64_e32 v[6:7], v[12:13]
	v_mov_b32_e32 v18, v11
	v_mov_b32_e32 v11, v1
	v_mov_b64_e32 v[8:9], v[14:15]
	s_or_b64 exec, exec, s[4:5]
	v_mov_b32_e32 v1, v18
.LBB0_15:
	s_or_b64 exec, exec, s[12:13]
	s_waitcnt vmcnt(0)
	v_mov_b64_e32 v[20:21], v[4:5]
	v_mov_b64_e32 v[18:19], v[2:3]
	v_mov_b64_e32 v[2:3], v[6:7]
	v_mov_b32_e32 v12, v1
	v_mov_b32_e32 v1, v11
	v_mov_b64_e32 v[4:5], v[8:9]
.LBB0_16:
	s_or_b64 exec, exec, s[10:11]
	s_and_saveexec_b64 s[4:5], s[2:3]
	ds_write_b128 v12, v[18:21]
	s_or_b64 exec, exec, s[4:5]
	s_waitcnt vmcnt(0)
	ds_write_b128 v1, v[2:5]
	s_waitcnt lgkmcnt(0)
	s_barrier
	s_load_dword s0, s[0:1], 0x4
	v_bfe_u32 v1, v0, 10, 10
	v_bfe_u32 v0, v0, 20, 10
	s_waitcnt lgkmcnt(0)
	s_lshr_b32 s0, s0, 16
	v_mad_u32_u24 v0, v0, s0, v1
	v_mad_u64_u32 v[32:33], s[0:1], v0, s26, v[16:17]
	v_lshrrev_b32_e32 v2, 2, v32
	v_and_b32_e32 v34, 12, v2
	v_lshlrev_b32_e32 v4, 1, v32
	v_and_b32_e32 v1, 4, v2
	v_bfe_u32 v0, v32, 3, 1
	v_and_b32_e32 v12, 14, v4
	v_bitop3_b32 v4, v34, 6, 2 bitop3:0xc8
	v_or_b32_e32 v3, v0, v1
	v_lshlrev_b32_e32 v35, 7, v34
	v_or_b32_e32 v51, 1, v34
	v_or_b32_e32 v4, v4, v0
	v_or_b32_e32 v50, 3, v34
	v_lshlrev_b32_e32 v15, 4, v3
	v_bitop3_b32 v3, v51, v0, 5 bitop3:0x6c
	v_lshlrev_b32_e32 v13, 4, v4
	v_or_b32_e32 v4, 0x100, v35
	v_bitop3_b32 v5, v50, v0, 7 bitop3:0x6c
	v_lshlrev_b32_e32 v16, 4, v3
	v_or_b32_e32 v3, 0x80, v35
	v_or3_b32 v9, v4, v13, v12
	v_lshlrev_b32_e32 v14, 4, v5
	v_or_b32_e32 v6, 0x180, v35
	v_or3_b32 v7, v35, v15, v12
	v_or3_b32 v8, v3, v16, v12
	v_or3_b32 v5, v6, v14, v12
	s_mov_b32 s0, 0x5040100
	ds_read_u16 v10, v9 offset:8192
	ds_read_u16 v11, v5 offset:8192
	ds_read_u16 v17, v7 offset:8192
	ds_read_u16 v18, v8 offset:8192
	ds_read_u16 v25, v9 offset:16384
	ds_read_u16 v33, v8 offset:16384
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v9, v11, v10, s0
	v_and_b32_e32 v53, 15, v32
	v_bfe_u32 v10, v2, 3, 1
	v_and_or_b32 v8, v2, 48, v53
	v_bitop3_b32 v10, v10, v32, 7 bitop3:0x78
	v_lshlrev_b32_e32 v62, 7, v8
	v_lshlrev_b32_e32 v63, 1, v1
	v_lshlrev_b32_e32 v8, 4, v10
	v_or_b32_e32 v52, 2, v34
	v_or3_b32 v8, v8, v63, v62
	ds_read_u16 v40, v7 offset:16384
	ds_read_b64 v[26:27], v8
	v_or_b32_e32 v7, 2, v0
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v8, v18, v17, s0
	v_bitop3_b32 v17, v52, v7, 6 bitop3:0x6c
	v_or_b32_e32 v10, v7, v1
	v_bitop3_b32 v11, v51, v7, 5 bitop3:0x6c
	v_lshlrev_b32_e32 v23, 4, v17
	v_bitop3_b32 v7, v50, v7, 7 bitop3:0x6c
	v_lshlrev_b32_e32 v64, 4, v10
	v_or3_b32 v17, v4, v23, v12
	v_lshlrev_b32_e32 v24, 4, v7
	v_lshlrev_b32_e32 v65, 4, v11
	v_or3_b32 v10, v35, v64, v12
	v_or3_b32 v30, v6, v24, v12
	v_or3_b32 v7, v3, v65, v12
	ds_read_u16 v11, v17 offset:8192
	ds_read_u16 v18, v30 offset:8192
	ds_read_u16 v28, v10 offset:8192
	ds_read_u16 v29, v7 offset:8192
	ds_read_u16 v44, v17 offset:16384
	ds_read_u16 v45, v7 offset:16384
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v7, v18, v11, s0
	v_or_b32_e32 v11, 4, v0
	v_bitop3_b32 v2, v0, v2, 4 bitop3:0x72
	v_lshlrev_b32_e32 v66, 4, v2
	v_bitop3_b32 v2, v51, v11, 5 bitop3:0x6c
	v_bitop3_b32 v17, v52, v11, 6 bitop3:0x6c
	v_bitop3_b32 v11, v50, v11, 7 bitop3:0x6c
	v_lshlrev_b32_e32 v19, 4, v17
	v_lshlrev_b32_e32 v20, 4, v11
	v_or_b32_e32 v11, 6, v0
	v_bitop3_b32 v1, v0, v1, 6 bitop3:0x36
	v_bitop3_b32 v0, v52, v0, 6 bitop3:0x4e
	v_lshlrev_b32_e32 v67, 4, v2
	v_or3_b32 v36, v4, v19, v12
	v_lshlrev_b32_e32 v21, 4, v1
	v_bitop3_b32 v1, v51, v11, 5 bitop3:0x6c
	v_lshlrev_b32_e32 v17, 4, v0
	v_bitop3_b32 v0, v50, v11, 7 bitop3:0x6c
	v_or3_b32 v31, v35, v66, v12
	v_or3_b32 v2, v3, v67, v12
	v_or3_b32 v38, v6, v20, v12
	v_lshlrev_b32_e32 v22, 4, v1
	v_lshlrev_b32_e32 v18, 4, v0
	ds_read_u16 v46, v10 offset:16384
	ds_read_u16 v43, v5 offset:16384
	ds_read_u16 v0, v36 offset:8192
	ds_read_u16 v1, v38 offset:8192
	ds_read_u16 v10, v31 offset:8192
	ds_read_u16 v47, v2 offset:8192
	ds_read_u16 v48, v36 offset:16384
	ds_read_u16 v49, v2 offset:16384
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v11, v1, v0, s0
	v_or_b32_e32 v0, 16, v34
	v_lshrrev_b32_e32 v0, 3, v0
	v_bitop3_b32 v0, v0, v32, 7 bitop3:0x78
	v_lshl_or_b32 v0, v0, 4, v63
	v_or3_b32 v37, v3, v22, v12
	v_or3_b32 v42, v6, v18, v12
	v_perm_b32 v6, v29, v28, s0
	v_or_b32_e32 v36, 0x800, v35
	v_or_b32_e32 v54, 0x880, v35
	v_or_b32_e32 v56, 0x980, v35
	v_add_u32_e32 v28, v0, v62
	v_mfma_f32_16x16x16_bf16 v[0:3], v[26:27], v[8:9], 0
	v_or3_b32 v41, v4, v17, v12
	v_or3_b32 v4, v54, v16, v12
	v_or_b32_e32 v55, 0x900, v35
	v_or3_b32 v57, v56, v14, v12
	v_or3_b32 v58, v36, v64, v12
	v_or3_b32 v60, v54, v65, v12
	v_or3_b32 v5, v55, v13, v12
	v_or3_b32 v59, v36, v15, v12
	v_or3_b32 v8, v55, v23, v12
	ds_read_u16 v9, v4 offset:8192
	ds_read_u16 v61, v5 offset:8192
	ds_read_b64 v[28:29], v28
	ds_read_u16 v68, v59 offset:8192
	ds_read_u16 v69, v5 offset:16384
	ds_read_u16 v70, v4 offset:16384
	ds_read_u16 v4, v57 offset:8192
	ds_read_u16 v71, v58 offset:8192
	ds_read_u16 v72, v8 offset:8192
	ds_read_u16 v73, v60 offset:8192
	ds_read_u16 v74, v8 offset:16384
	ds_read_u16 v60, v60 offset:16384
	ds_read_u16 v58, v58 offset:16384
	ds_read_u16 v57, v57 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v5, v4, v61, s0
	v_perm_b32 v4, v9, v68, s0
	v_or3_b32 v8, v56, v24, v12
	v_or3_b32 v9, v55, v19, v12
	v_mfma_f32_16x16x16_bf16 v[0:3], v[28:29], v[4:5], v[0:3]
	ds_read_u16 v68, v31 offset:16384
	ds_read_u16 v75, v30 offset:16384
	v_perm_b32 v10, v47, v10, s0
	v_or3_b32 v30, v36, v66, v12
	v_mfma_f32_16x16x16_bf16 v[4:7], v[26:27], v[6:7], 0
	v_or3_b32 v31, v54, v67, v12
	ds_read_u16 v47, v8 offset:8192
	ds_read_u16 v76, v9 offset:8192
	ds_read_u16 v77, v30 offset:8192
	ds_read_u16 v78, v31 offset:8192
	ds_read_u16 v79, v9 offset:16384
	ds_read_u16 v80, v31 offset:16384
	ds_read_u16 v81, v30 offset:16384
	ds_read_u16 v82, v8 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v9, v47, v72, s0
	v_perm_b32 v8, v73, v71, s0
	v_or3_b32 v39, v35, v21, v12
	ds_read_u16 v59, v59 offset:16384
	ds_read_u16 v61, v42 offset:16384
	v_mfma_f32_16x16x16_bf16 v[4:7], v[28:29], v[8:9], v[4:7]
	ds_read_u16 v8, v41 offset:8192
	ds_read_u16 v9, v42 offset:8192
	ds_read_u16 v30, v39 offset:8192
	ds_read_u16 v42, v37 offset:8192
	ds_read_u16 v71, v41 offset:16384
	ds_read_u16 v72, v37 offset:16384
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v31, v9, v8, s0
	v_or3_b32 v37, v56, v20, v12
	v_mfma_f32_16x16x16_bf16 v[8:11], v[26:27], v[10:11], 0
	v_or3_b32 v36, v36, v21, v12
	v_or3_b32 v41, v54, v22, v12
	v_or3_b32 v47, v55, v17, v12
	ds_read_u16 v54, v37 offset:8192
	ds_read_u16 v55, v47 offset:8192
	ds_read_u16 v73, v36 offset:8192
	ds_read_u16 v83, v41 offset:8192
	ds_read_u16 v84, v47 offset:16384
	ds_read_u16 v85, v41 offset:16384
	ds_read_u16 v86, v36 offset:16384
	ds_read_u16 v87, v37 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v37, v54, v76, s0
	v_perm_b32 v36, v78, v77, s0
	v_perm_b32 v30, v42, v30, s0
	ds_read_u16 v76, v39 offset:16384
	ds_read_u16 v54, v38 offset:16384
	v_mfma_f32_16x16x16_bf16 v[8:11], v[28:29], v[36:37], v[8:11]
	v_or3_b32 v41, v56, v18, v12
	v_or_b32_e32 v77, 0x1000, v35
	v_or_b32_e32 v88, 0x1080, v35
	v_mfma_f32_16x16x16_bf16 v[36:39], v[26:27], v[30:31], 0
	v_or_b32_e32 v30, 32, v34
	v_lshrrev_b32_e32 v30, 3, v30
	v_bitop3_b32 v30, v30, v32, 7 bitop3:0x78
	v_lshl_or_b32 v30, v30, 4, v63
	v_or3_b32 v78, v77, v15, v12
	v_or3_b32 v89, v88, v16, v12
	v_add_u32_e32 v30, v30, v62
	ds_read_u16 v31, v41 offset:8192
	ds_read_u16 v90, v41 offset:16384
	ds_read_u16 v91, v89 offset:16384
	ds_read_u16 v92, v78 offset:16384
	ds_read_b64 v[94:95], v30
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v31, v31, v55, s0
	v_perm_b32 v30, v83, v73, s0
	v_cmp_gt_u32_e32 vcc, s8, v34
	s_nop 0
	v_mfma_f32_16x16x16_bf16 v[36:39], v[28:29], v[30:31], v[36:39]
	v_perm_b32 v31, v43, v25, s0
	v_perm_b32 v30, v33, v40, s0
	v_or_b32_e32 v25, 0x1100, v35
	v_or3_b32 v33, v25, v13, v12
	v_mfma_f32_16x16x16_bf16 v[40:43], v[26:27], v[30:31], 0
	v_perm_b32 v31, v57, v69, s0
	v_perm_b32 v30, v70, v59, s0
	s_nop 1
	v_mfma_f32_16x16x16_bf16 v[40:43], v[28:29], v[30:31], v[40:43]
	v_perm_b32 v31, v75, v44, s0
	v_perm_b32 v30, v45, v46, s0
	s_nop 1
	v_mfma_f32_16x16x16_bf16 v[44:47], v[26:27], v[30:31], 0
	v_perm_b32 v31, v82, v74, s0
	v_perm_b32 v30, v60, v58, s0
	s_nop 1
	v_mfma_f32_16x16x16_bf16 v[44:47], v[28:29], v[30:31], v[44:47]
	v_perm_b32 v31, v54, v48, s0
	v_perm_b32 v30, v49, v68, s0
	ds_read_u16 v68, v78 offset:8192
	ds_read_u16 v69, v89 offset:8192
	ds_read_u16 v70, v33 offset:8192
	v_mfma_f32_16x16x16_bf16 v[54:57], v[26:27], v[30:31], 0
	v_perm_b32 v31, v87, v79, s0
	v_perm_b32 v30, v80, v81, s0
	s_waitcnt lgkmcnt(6)
	v_perm_b32 v49, v90, v84, s0
	v_perm_b32 v48, v85, v86, s0
	v_mfma_f32_16x16x16_bf16 v[54:57], v[28:29], v[30:31], v[54:57]
	v_perm_b32 v31, v61, v71, s0
	v_perm_b32 v30, v72, v76, s0
	v_or_b32_e32 v71, 0x1180, v35
	s_nop 0
	v_mfma_f32_16x16x16_bf16 v[58:61], v[26:27], v[30:31], 0
	v_or3_b32 v30, v71, v14, v12
	v_or3_b32 v31, v77, v64, v12
	v_mfma_f32_16x16x16_bf16 v[26:29], v[28:29], v[48:49], v[58:61]
	v_or3_b32 v49, v88, v65, v12
	v_or3_b32 v48, v25, v23, v12
	s_nop 2
	ds_read_u16 v58, v30 offset:8192
	ds_read_u16 v59, v48 offset:8192
	ds_read_u16 v60, v31 offset:8192
	ds_read_u16 v61, v49 offset:8192
	ds_read_u16 v49, v49 offset:16384
	ds_read_u16 v72, v31 offset:16384
	ds_read_u16 v73, v30 offset:16384
	ds_read_u16 v33, v33 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v31, v58, v70, s0
	v_perm_b32 v30, v69, v68, s0
	v_or3_b32 v68, v88, v67, v12
	v_or3_b32 v58, v25, v19, v12
	v_mfma_f32_16x16x16_bf16 v[0:3], v[94:95], v[30:31], v[0:3]
	v_or3_b32 v30, v71, v24, v12
	v_or3_b32 v31, v77, v66, v12
	ds_read_u16 v69, v30 offset:8192
	ds_read_u16 v70, v58 offset:8192
	ds_read_u16 v74, v31 offset:8192
	ds_read_u16 v75, v68 offset:8192
	ds_read_u16 v68, v68 offset:16384
	ds_read_u16 v76, v31 offset:16384
	ds_read_u16 v78, v30 offset:16384
	ds_read_u16 v48, v48 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v31, v69, v59, s0
	v_perm_b32 v30, v61, v60, s0
	v_or3_b32 v59, v88, v22, v12
	v_or3_b32 v25, v25, v17, v12
	v_mfma_f32_16x16x16_bf16 v[4:7], v[94:95], v[30:31], v[4:7]
	v_or3_b32 v30, v71, v20, v12
	v_or3_b32 v31, v77, v21, v12
	ds_read_u16 v60, v30 offset:8192
	ds_read_u16 v61, v25 offset:8192
	ds_read_u16 v69, v31 offset:8192
	ds_read_u16 v77, v59 offset:8192
	ds_read_u16 v59, v59 offset:16384
	ds_read_u16 v79, v31 offset:16384
	ds_read_u16 v80, v30 offset:16384
	ds_read_u16 v58, v58 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v31, v60, v70, s0
	v_perm_b32 v30, v75, v74, s0
	v_or_b32_e32 v70, 0x1800, v35
	v_or3_b32 v15, v70, v15, v12
	v_mfma_f32_16x16x16_bf16 v[8:11], v[94:95], v[30:31], v[8:11]
	v_or3_b32 v30, v71, v18, v12
	v_or_b32_e32 v71, 0x1880, v35
	v_or3_b32 v16, v71, v16, v12
	ds_read_u16 v31, v30 offset:8192
	ds_read_u16 v74, v15 offset:8192
	ds_read_u16 v75, v15 offset:16384
	ds_read_u16 v81, v16 offset:8192
	ds_read_u16 v15, v30 offset:16384
	ds_read_u16 v25, v25 offset:16384
	s_waitcnt lgkmcnt(5)
	v_perm_b32 v31, v31, v61, s0
	v_perm_b32 v30, v77, v69, s0
	s_nop 1
	v_mfma_f32_16x16x16_bf16 v[36:39], v[94:95], v[30:31], v[36:39]
	v_perm_b32 v31, v73, v33, s0
	v_perm_b32 v30, v91, v92, s0
	s_nop 1
	v_mfma_f32_16x16x16_bf16 v[40:43], v[94:95], v[30:31], v[40:43]
	v_or_b32_e32 v30, 48, v34
	v_lshrrev_b32_e32 v30, 3, v30
	v_bitop3_b32 v30, v30, v32, 7 bitop3:0x78
	v_lshl_or_b32 v33, v30, 4, v63
	v_perm_b32 v31, v78, v48, s0
	v_perm_b32 v30, v49, v72, s0
	v_add_u32_e32 v33, v33, v62
	ds_read_b64 v[72:73], v33
	ds_read_u16 v33, v16 offset:16384
	v_mfma_f32_16x16x16_bf16 v[44:47], v[94:95], v[30:31], v[44:47]
	v_perm_b32 v31, v80, v58, s0
	v_perm_b32 v30, v68, v76, s0
	v_or_b32_e32 v16, 0x1900, v35
	v_or_b32_e32 v48, 0x1980, v35
	v_mfma_f32_16x16x16_bf16 v[54:57], v[94:95], v[30:31], v[54:57]
	s_waitcnt lgkmcnt(2)
	v_perm_b32 v31, v15, v25, s0
	v_perm_b32 v30, v59, v79, s0
	v_or3_b32 v13, v16, v13, v12
	v_or3_b32 v14, v48, v14, v12
	v_or3_b32 v25, v71, v65, v12
	v_mfma_f32_16x16x16_bf16 v[58:61], v[94:95], v[30:31], v[26:29]
	v_or3_b32 v15, v70, v64, v12
	s_nop 1
	ds_read_u16 v26, v14 offset:8192
	ds_read_u16 v27, v13 offset:8192
	ds_read_u16 v49, v25 offset:16384
	ds_read_u16 v62, v15 offset:16384
	ds_read_u16 v63, v14 offset:16384
	ds_read_u16 v25, v25 offset:8192
	ds_read_u16 v64, v15 offset:8192
	ds_read_u16 v13, v13 offset:16384
	s_waitcnt lgkmcnt(6)
	v_perm_b32 v15, v26, v27, s0
	v_perm_b32 v14, v81, v74, s0
	v_lshlrev_b32_e32 v32, 5, v32
	v_or_b32_e32 v35, v35, v53
	v_mfma_f32_16x16x16_bf16 v[28:31], v[72:73], v[14:15], v[0:3]
	s_nop 2
	v_or3_b32 v1, v48, v24, v12
	v_or3_b32 v0, v16, v23, v12
	v_or3_b32 v2, v70, v66, v12
	v_or3_b32 v3, v71, v67, v12
	ds_read_u16 v14, v1 offset:8192
	ds_read_u16 v15, v0 offset:8192
	ds_read_u16 v65, v1 offset:16384
	ds_read_u16 v23, v3 offset:8192
	ds_read_u16 v66, v2 offset:8192
	ds_read_u16 v67, v0 offset:16384
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v1, v14, v15, s0
	v_perm_b32 v0, v25, v64, s0
	ds_read_u16 v2, v2 offset:16384
	ds_read_u16 v3, v3 offset:16384
	v_mfma_f32_16x16x16_bf16 v[24:27], v[72:73], v[0:1], v[4:7]
	v_or3_b32 v1, v48, v20, v12
	v_or3_b32 v0, v16, v19, v12
	s_nop 0
	v_or3_b32 v4, v70, v21, v12
	v_or3_b32 v5, v71, v22, v12
	ds_read_u16 v6, v1 offset:8192
	ds_read_u16 v7, v0 offset:8192
	ds_read_u16 v64, v1 offset:16384
	ds_read_u16 v14, v5 offset:8192
	ds_read_u16 v15, v4 offset:8192
	ds_read_u16 v68, v0 offset:16384
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v1, v6, v7, s0
	v_or3_b32 v6, v16, v17, v12
	v_or3_b32 v7, v48, v18, v12
	ds_read_u16 v12, v6 offset:8192
	ds_read_u16 v16, v7 offset:8192
	v_perm_b32 v0, v23, v66, s0
	ds_read_u16 v48, v7 offset:16384
	ds_read_u16 v66, v6 offset:16384
	v_mfma_f32_16x16x16_bf16 v[20:23], v[72:73], v[0:1], v[8:11]
	s_waitcnt lgkmcnt(5)
	v_perm_b32 v0, v14, v15, s0
	s_waitcnt lgkmcnt(2)
	v_perm_b32 v1, v16, v12, s0
	v_and_b32_e32 v70, 0xfffff800, v32
	v_mov_b32_e32 v71, 0
	v_mfma_f32_16x16x16_bf16 v[16:19], v[72:73], v[0:1], v[36:39]
	v_perm_b32 v0, v33, v75, s0
	ds_read_u16 v33, v4 offset:16384
	s_nop 0
	ds_read_u16 v38, v5 offset:16384
	v_perm_b32 v1, v63, v13, s0
	v_mov_b32_e32 v36, s6
	v_mov_b32_e32 v37, s7
	v_mfma_f32_16x16x16_bf16 v[12:15], v[72:73], v[0:1], v[40:43]
	v_perm_b32 v1, v65, v67, s0
	v_perm_b32 v0, v49, v62, s0
	v_lshlrev_b32_e32 v67, 2, v53
	v_or_b32_e32 v62, 64, v53
	v_mfma_f32_16x16x16_bf16 v[8:11], v[72:73], v[0:1], v[44:47]
	v_perm_b32 v1, v64, v68, s0
	v_perm_b32 v0, v3, v2, s0
	v_or_b32_e32 v68, 16, v53
	v_lshlrev_b32_e32 v65, 2, v68
	v_mfma_f32_16x16x16_bf16 v[4:7], v[72:73], v[0:1], v[54:57]
	s_waitcnt lgkmcnt(0)
	v_perm_b32 v0, v38, v33, s0
	v_lshl_add_u64 v[32:33], v[70:71], 2, v[36:37]
	v_lshlrev_b32_e32 v70, 2, v35
	v_perm_b32 v1, v48, v66, s0
	v_lshl_add_u64 v[48:49], v[32:33], 0, v[70:71]
	v_lshl_or_b32 v70, v51, 9, v67
	v_lshl_add_u64 v[36:37], v[32:33], 0, v[70:71]
	v_lshl_or_b32 v70, v52, 9, v67
	v_lshl_add_u64 v[38:39], v[32:33], 0, v[70:71]
	v_lshl_or_b32 v70, v50, 9, v67
	v_lshlrev_b32_e32 v35, 9, v34
	v_or_b32_e32 v66, 32, v53
	v_lshl_add_u64 v[40:41], v[32:33], 0, v[70:71]
	v_or_b32_e32 v70, v35, v65
	v_lshlrev_b32_e32 v63, 2, v66
	v_or_b32_e32 v64, 48, v53
	v_mfma_f32_16x16x16_bf16 v[0:3], v[72:73], v[0:1], v[58:61]
	v_lshl_add_u64 v[46:47], v[32:33], 0, v[70:71]
	v_or_b32_e32 v70, v35, v63
	v_lshl_add_u64 v[44:45], v[32:33], 0, v[70:71]
	v_lshlrev_b32_e32 v61, 2, v64
	v_or_b32_e32 v70, v35, v61
	v_lshlrev_b32_e32 v59, 2, v62
	v_or_b32_e32 v60, 0x50, v53
	v_lshl_add_u64 v[42:43], v[32:33], 0, v[70:71]
	v_or_b32_e32 v70, v35, v59
	v_lshlrev_b32_e32 v57, 2, v60
	v_or_b32_e32 v58, 0x60, v53
	global_store_dword v[36:37], v29, off
	global_store_dword v[38:39], v30, off
	global_store_dword v[40:41], v31, off
	v_lshl_add_u64 v[40:41], v[32:33], 0, v[70:71]
	v_or_b32_e32 v70, v35, v57
	v_lshlrev_b32_e32 v55, 2, v58
	v_or_b32_e32 v56, 0x70, v53
	v_lshl_add_u64 v[38:39], v[32:33], 0, v[70:71]
	v_or_b32_e32 v70, v35, v55
	v_lshlrev_b32_e32 v54, 2, v56
	v_lshl_add_u64 v[36:37], v[32:33], 0, v[70:71]
	v_or_b32_e32 v70, v35, v54
	v_cmp_gt_u32_e64 s[6:7], s9, v53
	v_lshl_add_u64 v[34:35], v[32:33], 0, v[70:71]
	s_and_b64 s[2:3], s[6:7], vcc
	global_store_dword v[48:49], v28, off
	global_store_dword v[46:47], v24, off
	global_store_dword v[46:47], v25, off offset:512
	global_store_dword v[46:47], v26, off offset:1024
	global_store_dword v[46:47], v27, off offset:1536
	global_store_dword v[44:45], v20, off
	global_store_dword v[44:45], v21, off offset:512
	global_store_dword v[44:45], v22, off offset:1024
	global_store_dword v[44:45], v23, off offset:1536
	global_store_dword v[42:43], v16, off
	global_store_dword v[42:43], v17, off offset:512
	global_store_dword v[42:43], v18, off offset:1024
	global_store_dword v[42:43], v19, off offset:1536
	global_store_dword v[40:41], v12, off
	global_store_dword v[40:41], v13, off offset:512
	global_store_dword v[40:41], v14, off offset:1024
	global_store_dword v[40:41], v15, off offset:1536
	global_store_dword v[38:39], v8, off
	global_store_dword v[38:39], v9, off offset:512
	global_store_dword v[38:39], v10, off offset:1024
	global_store_dword v[38:39], v11, off offset:1536
	global_store_dword v[36:37], v4, off
	global_store_dword v[36:37], v5, off offset:512
	global_store_dword v[36:37], v6, off offset:1024
	global_store_dword v[36:37], v7, off offset:1536
	global_store_dword v[34:35], v0, off
	global_store_dword v[34:35], v1, off offset:512
	global_store_dword v[34:35], v2, off offset:1024
	global_store_dword v[34:35], v3, off offset:1536
	s_and_saveexec_b64 s[0:1], s[2:3]
	s_cbranch_execz .LBB0_20
	global_store_dword v[48:49], v28, off
.LBB0_20:
	s_or_b64 exec, exec, s[0:1]
	v_cmp_gt_u32_e64 s[0:1], s8, v51
	v_lshlrev_b32_e32 v28, 9, v51
	s_and_b64 s[4:5], s[6:7], s[0:1]
	s_and_saveexec_b64 s[2:3], s[4:5]
	s_cbranch_execz .LBB0_22
	v_or_b32_e32 v48, v28, v67
	v_mov_b32_e32 v49, 0
	v_lshl_add_u64 v[48:49], v[32:33], 0, v[48:49]
	global_store_dword v[48:49], v29, off
.LBB0_22:
	s_or_b64 exec, exec, s[2:3]
	v_cmp_gt_u32_e64 s[2:3], s8, v52
	v_lshlrev_b32_e32 v29, 9, v52
	s_and_b64 s[10:11], s[6:7], s[2:3]
	s_and_saveexec_b64 s[4:5], s[10:11]
	s_cbranch_execz .LBB0_24
	v_or_b32_e32 v48, v29, v67
	v_mov_b32_e32 v49, 0
	v_lshl_add_u64 v[48:49], v[32:33], 0, v[48:49]
	global_store_dword v[48:49], v30, off
.LBB0_24:
	s_or_b64 exec, exec, s[4:5]
	v_cmp_gt_u32_e64 s[4:5], s8, v50
	v_lshlrev_b32_e32 v30, 9, v50
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execz .LBB0_26
	v_or_b32_e32 v48, v30, v67
	v_mov_b32_e32 v49, 0
	v_lshl_add_u64 v[48:49], v[32:33], 0, v[48:49]
	global_store_dword v[48:49], v31, off
.LBB0_26:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v68
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_61
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_62
.LBB0_28:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_63
.LBB0_29:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execz .LBB0_31
.LBB0_30:
	v_or_b32_e32 v24, v30, v65
	v_mov_b32_e32 v25, 0
	v_lshl_add_u64 v[24:25], v[32:33], 0, v[24:25]
	global_store_dword v[24:25], v27, off
.LBB0_31:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v66
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_64
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_65
.LBB0_33:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_66
.LBB0_34:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execz .LBB0_36
.LBB0_35:
	v_or_b32_e32 v20, v30, v63
	v_mov_b32_e32 v21, 0
	v_lshl_add_u64 v[20:21], v[32:33], 0, v[20:21]
	global_store_dword v[20:21], v23, off
.LBB0_36:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v64
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_67
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_68
.LBB0_38:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_69
.LBB0_39:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execz .LBB0_41
.LBB0_40:
	v_or_b32_e32 v16, v30, v61
	v_mov_b32_e32 v17, 0
	v_lshl_add_u64 v[16:17], v[32:33], 0, v[16:17]
	global_store_dword v[16:17], v19, off
.LBB0_41:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v62
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_70
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_71
.LBB0_43:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_72
.LBB0_44:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execz .LBB0_46
.LBB0_45:
	v_or_b32_e32 v12, v30, v59
	v_mov_b32_e32 v13, 0
	v_lshl_add_u64 v[12:13], v[32:33], 0, v[12:13]
	global_store_dword v[12:13], v15, off
.LBB0_46:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v60
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_73
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_74
.LBB0_48:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_75
.LBB0_49:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execz .LBB0_51
.LBB0_50:
	v_or_b32_e32 v8, v30, v57
	v_mov_b32_e32 v9, 0
	v_lshl_add_u64 v[8:9], v[32:33], 0, v[8:9]
	global_store_dword v[8:9], v11, off
.LBB0_51:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v58
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_76
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_77
.LBB0_53:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_78
.LBB0_54:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execz .LBB0_56
.LBB0_55:
	v_or_b32_e32 v4, v30, v55
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v7, off
.LBB0_56:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v56
	s_and_b64 s[10:11], vcc, s[6:7]
	s_and_saveexec_b64 s[8:9], s[10:11]
	s_cbranch_execnz .LBB0_79
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[0:1]
	s_and_saveexec_b64 s[0:1], s[8:9]
	s_cbranch_execnz .LBB0_80
.LBB0_58:
	s_or_b64 exec, exec, s[0:1]
	s_and_b64 s[2:3], s[6:7], s[2:3]
	s_and_saveexec_b64 s[0:1], s[2:3]
	s_cbranch_execnz .LBB0_81
.LBB0_59:
	s_or_b64 exec, exec, s[0:1]
	s_and_b64 s[0:1], s[6:7], s[4:5]
	s_and_saveexec_b64 s[2:3], s[0:1]
	s_cbranch_execnz .LBB0_82
.LBB0_60:
	s_endpgm
.LBB0_61:
	global_store_dword v[46:47], v24, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_28
.LBB0_62:
	v_or_b32_e32 v46, v28, v65
	v_mov_b32_e32 v47, 0
	v_lshl_add_u64 v[46:47], v[32:33], 0, v[46:47]
	global_store_dword v[46:47], v25, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_29
.LBB0_63:
	v_or_b32_e32 v24, v29, v65
	v_mov_b32_e32 v25, 0
	v_lshl_add_u64 v[24:25], v[32:33], 0, v[24:25]
	global_store_dword v[24:25], v26, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_30
	s_branch .LBB0_31
.LBB0_64:
	global_store_dword v[44:45], v20, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_33
.LBB0_65:
	v_or_b32_e32 v24, v28, v63
	v_mov_b32_e32 v25, 0
	v_lshl_add_u64 v[24:25], v[32:33], 0, v[24:25]
	global_store_dword v[24:25], v21, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_34
.LBB0_66:
	v_or_b32_e32 v20, v29, v63
	v_mov_b32_e32 v21, 0
	v_lshl_add_u64 v[20:21], v[32:33], 0, v[20:21]
	global_store_dword v[20:21], v22, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_35
	s_branch .LBB0_36
.LBB0_67:
	global_store_dword v[42:43], v16, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_38
.LBB0_68:
	v_or_b32_e32 v20, v28, v61
	v_mov_b32_e32 v21, 0
	v_lshl_add_u64 v[20:21], v[32:33], 0, v[20:21]
	global_store_dword v[20:21], v17, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_39
.LBB0_69:
	v_or_b32_e32 v16, v29, v61
	v_mov_b32_e32 v17, 0
	v_lshl_add_u64 v[16:17], v[32:33], 0, v[16:17]
	global_store_dword v[16:17], v18, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_40
	s_branch .LBB0_41
.LBB0_70:
	global_store_dword v[40:41], v12, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_43
.LBB0_71:
	v_or_b32_e32 v16, v28, v59
	v_mov_b32_e32 v17, 0
	v_lshl_add_u64 v[16:17], v[32:33], 0, v[16:17]
	global_store_dword v[16:17], v13, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_44
.LBB0_72:
	v_or_b32_e32 v12, v29, v59
	v_mov_b32_e32 v13, 0
	v_lshl_add_u64 v[12:13], v[32:33], 0, v[12:13]
	global_store_dword v[12:13], v14, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_45
	s_branch .LBB0_46
.LBB0_73:
	global_store_dword v[38:39], v8, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_48
.LBB0_74:
	v_or_b32_e32 v12, v28, v57
	v_mov_b32_e32 v13, 0
	v_lshl_add_u64 v[12:13], v[32:33], 0, v[12:13]
	global_store_dword v[12:13], v9, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_49
.LBB0_75:
	v_or_b32_e32 v8, v29, v57
	v_mov_b32_e32 v9, 0
	v_lshl_add_u64 v[8:9], v[32:33], 0, v[8:9]
	global_store_dword v[8:9], v10, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_50
	s_branch .LBB0_51
.LBB0_76:
	global_store_dword v[36:37], v4, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_53
.LBB0_77:
	v_or_b32_e32 v8, v28, v55
	v_mov_b32_e32 v9, 0
	v_lshl_add_u64 v[8:9], v[32:33], 0, v[8:9]
	global_store_dword v[8:9], v5, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_54
.LBB0_78:
	v_or_b32_e32 v4, v29, v55
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v6, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_55
	s_branch .LBB0_56
.LBB0_79:
	global_store_dword v[34:35], v0, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[0:1]
	s_and_saveexec_b64 s[0:1], s[8:9]
	s_cbranch_execz .LBB0_58
.LBB0_80:
	v_or_b32_e32 v4, v28, v54
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v1, off
	s_or_b64 exec, exec, s[0:1]
	s_and_b64 s[2:3], s[6:7], s[2:3]
	s_and_saveexec_b64 s[0:1], s[2:3]
	s_cbranch_execz .LBB0_59
.LBB0_81:
	v_or_b32_e32 v0, v29, v54
	v_mov_b32_e32 v1, 0
	v_lshl_add_u64 v[0:1], v[32:33], 0, v[0:1]
	global_store_dword v[0:1], v2, off
	s_or_b64 exec, exec, s[0:1]
	s_and_b64 s[0:1], s[6:7], s[4:5]
	s_and_saveexec_b64 s[2:3], s[0:1]
	s_cbranch_execz .LBB0_60
.LBB0_82:
	v_or_b32_e32 v0, v30, v54
	v_mov_b32_e32 v1, 0
	v_lshl_add_u64 v[0:1], v[32:33], 0, v[0:1]
	global_store_dword v[0:1], v3, off
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel group_product
		.amdhsa_group_segment_fixed_size 24576
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 48
		.amdhsa_user_sgpr_count 4
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 2
		.amdhsa_next_free_vgpr 96
		.amdhsa_next_free_sgpr 31
		.amdhsa_accum_offset 96
		.amdhsa_reserve_vcc 1
		.amdhsa_reserve_xnack_mask 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
.Lfunc_end0:
	.size	group_product, .Lfunc_end0-group_product

	.set group_product.num_vgpr, 96
	.set group_product.num_agpr, 0
	.set group_product.numbered_sgpr, 31
	.set group_product.num_named_barrier, 0
	.set group_product.private_seg_size, 0
	.set group_product.uses_vcc, 1
	.set group_product.uses_flat_scratch, 0
	.set group_product.has_dyn_sized_stack, 0
	.set group_product.has_recursion, 0
	.set group_product.has_indirect_call, 0
	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.section	.AMDGPU.gpr_maximums,"",@progbits
	.set amdgpu.max_num_vgpr, 0
	.set amdgpu.max_num_agpr, 0
	.set amdgpu.max_num_sgpr, 0
	.set amdgpu.max_num_named_barrier, 0
	.text
	.section	".note.GNU-stack","",@progbits
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .name:           a
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .name:           c
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .name:           rows
        .offset:         16
        .size:           4
        .value_kind:     by_value
      - .name:           cols
        .offset:         20
        .size:           4
        .value_kind:     by_value
      - .name:           a.len
        .offset:         24
        .size:           8
        .value_kind:     by_value
      - .name:           c.len
        .offset:         32
        .size:           8
        .value_kind:     by_value
      - .address_space:  global
        .name:           bounds_record
        .offset:         40
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 24576
    .kernarg_segment_align: 8
    .kernarg_segment_size: 48
    .max_flat_workgroup_size: 512
    .name:           group_product
    .private_segment_fixed_size: 0
    .sgpr_count:     37
    .sgpr_spill_count: 0
    .symbol:         group_product.kd
    .uses_dynamic_stack: false
    .vgpr_count:     96
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx950
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
