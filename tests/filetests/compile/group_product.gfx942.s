	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
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
	v_lshrrev_b32_e32 v0, 2, v32
	v_and_b32_e32 v52, 15, v32
	v_and_b32_e32 v53, 12, v0
	v_and_or_b32 v1, v0, 48, v52
	v_bfe_u32 v2, v0, 3, 1
	v_and_b32_e32 v3, 7, v32
	v_and_b32_e32 v28, 4, v0
	v_bfe_u32 v29, v32, 3, 1
	v_or_b32_e32 v54, 1, v53
	v_xor_b32_e32 v2, v2, v3
	v_lshlrev_b32_e32 v4, 7, v1
	v_or_b32_e32 v1, v29, v28
	v_and_b32_e32 v30, 5, v54
	v_or_b32_e32 v51, 2, v53
	v_or_b32_e32 v50, 3, v53
	v_lshlrev_b32_e32 v5, 1, v28
	v_lshlrev_b32_e32 v0, 4, v2
	v_lshlrev_b32_e32 v6, 4, v1
	v_xor_b32_e32 v1, v30, v29
	v_and_b32_e32 v33, 6, v51
	v_and_b32_e32 v36, 7, v50
	v_or3_b32 v8, v0, v5, v4
	v_lshlrev_b32_e32 v34, 7, v53
	v_lshlrev_b32_e32 v0, 1, v32
	v_lshlrev_b32_e32 v7, 4, v1
	v_or_b32_e32 v1, v33, v29
	v_xor_b32_e32 v2, v36, v29
	v_and_b32_e32 v0, 14, v0
	v_or_b32_e32 v31, 0x80, v34
	v_lshlrev_b32_e32 v1, 4, v1
	v_or_b32_e32 v35, 0x100, v34
	v_lshlrev_b32_e32 v2, 4, v2
	v_or_b32_e32 v37, 0x180, v34
	v_or3_b32 v10, v34, v6, v0
	v_or3_b32 v9, v31, v7, v0
	v_or3_b32 v11, v35, v1, v0
	v_or3_b32 v20, v37, v2, v0
	ds_read_b64 v[14:15], v8
	ds_read_u16 v8, v11 offset:8192
	ds_read_u16 v12, v20 offset:8192
	ds_read_u16 v13, v10 offset:8192
	ds_read_u16 v16, v9 offset:8192
	ds_read_u16 v38, v11 offset:16384
	ds_read_u16 v39, v9 offset:16384
	s_mov_b32 s0, 0x5040100
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v9, v12, v8, s0
	s_waitcnt lgkmcnt(2)
	v_perm_b32 v8, v16, v13, s0
	ds_read_u16 v40, v10 offset:16384
	v_or_b32_e32 v63, 0x900, v34
	v_mfma_f32_16x16x16_bf16 v[16:19], v[14:15], v[8:9], 0
	v_or_b32_e32 v9, 2, v29
	v_or_b32_e32 v8, v9, v28
	v_lshlrev_b32_e32 v12, 4, v8
	v_xor_b32_e32 v8, v30, v9
	v_lshlrev_b32_e32 v13, 4, v8
	v_xor_b32_e32 v8, v33, v9
	v_lshlrev_b32_e32 v8, 4, v8
	v_xor_b32_e32 v9, v36, v9
	v_or3_b32 v21, v35, v8, v0
	v_lshlrev_b32_e32 v9, 4, v9
	v_or3_b32 v10, v34, v12, v0
	v_or3_b32 v11, v31, v13, v0
	v_or3_b32 v24, v37, v9, v0
	ds_read_u16 v22, v21 offset:8192
	ds_read_u16 v23, v24 offset:8192
	ds_read_u16 v25, v10 offset:8192
	ds_read_u16 v26, v11 offset:8192
	ds_read_u16 v41, v21 offset:16384
	ds_read_u16 v42, v11 offset:16384
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v11, v23, v22, s0
	ds_read_u16 v43, v10 offset:16384
	ds_read_u16 v44, v20 offset:16384
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v10, v26, v25, s0
	v_or_b32_e32 v61, 0x800, v34
	v_or_b32_e32 v62, 0x880, v34
	v_mfma_f32_16x16x16_bf16 v[20:23], v[14:15], v[10:11], 0
	v_or_b32_e32 v11, 4, v29
	v_xor_b32_e32 v10, v11, v28
	v_lshlrev_b32_e32 v55, 4, v10
	v_xor_b32_e32 v10, v30, v11
	v_lshlrev_b32_e32 v64, 4, v10
	v_xor_b32_e32 v10, v33, v11
	v_or_b32_e32 v29, 6, v29
	v_lshlrev_b32_e32 v10, 4, v10
	v_xor_b32_e32 v11, v36, v11
	v_xor_b32_e32 v30, v30, v29
	v_or3_b32 v27, v35, v10, v0
	v_lshlrev_b32_e32 v11, 4, v11
	v_lshlrev_b32_e32 v66, 4, v30
	v_or3_b32 v26, v34, v55, v0
	v_or3_b32 v25, v31, v64, v0
	v_or3_b32 v45, v37, v11, v0
	ds_read_u16 v46, v27 offset:8192
	ds_read_u16 v47, v45 offset:8192
	ds_read_u16 v48, v26 offset:8192
	ds_read_u16 v49, v25 offset:8192
	ds_read_u16 v56, v27 offset:16384
	ds_read_u16 v57, v25 offset:16384
	v_or3_b32 v30, v31, v66, v0
	v_xor_b32_e32 v31, v33, v29
	v_xor_b32_e32 v28, v29, v28
	v_lshlrev_b32_e32 v33, 4, v31
	v_xor_b32_e32 v29, v36, v29
	v_lshlrev_b32_e32 v65, 4, v28
	v_or3_b32 v31, v35, v33, v0
	v_lshlrev_b32_e32 v35, 4, v29
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v25, v47, v46, s0
	ds_read_u16 v46, v26 offset:16384
	ds_read_u16 v47, v24 offset:16384
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v24, v49, v48, s0
	v_or3_b32 v28, v34, v65, v0
	v_or3_b32 v48, v37, v35, v0
	ds_read_u16 v29, v31 offset:8192
	ds_read_u16 v36, v48 offset:8192
	ds_read_u16 v37, v28 offset:8192
	ds_read_u16 v49, v30 offset:8192
	ds_read_u16 v58, v31 offset:16384
	ds_read_u16 v59, v30 offset:16384
	ds_read_u16 v60, v28 offset:16384
	ds_read_u16 v45, v45 offset:16384
	v_or3_b32 v67, v63, v1, v0
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v28, v49, v37, s0
	v_or_b32_e32 v49, 16, v53
	v_lshrrev_b32_e32 v49, 3, v49
	v_xor_b32_e32 v49, v49, v3
	v_lshl_or_b32 v49, v49, 4, v5
	v_perm_b32 v37, v44, v38, s0
	s_waitcnt lgkmcnt(0)
	v_perm_b32 v45, v45, v56, s0
	v_perm_b32 v44, v57, v46, s0
	v_add_u32_e32 v49, v49, v4
	v_or3_b32 v56, v61, v6, v0
	v_or3_b32 v57, v62, v7, v0
	ds_read_u16 v48, v48 offset:16384
	ds_read_b64 v[88:89], v49
	ds_read_u16 v68, v56 offset:8192
	ds_read_u16 v69, v57 offset:8192
	ds_read_u16 v70, v67 offset:8192
	ds_read_u16 v67, v67 offset:16384
	ds_read_u16 v71, v57 offset:16384
	ds_read_u16 v72, v56 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v49, v48, v58, s0
	v_perm_b32 v48, v59, v60, s0
	v_perm_b32 v29, v36, v29, s0
	v_perm_b32 v36, v39, v40, s0
	v_perm_b32 v41, v47, v41, s0
	v_perm_b32 v40, v42, v43, s0
	v_mfma_f32_16x16x16_bf16 v[56:59], v[14:15], v[48:49], 0
	v_or_b32_e32 v48, 0x980, v34
	v_or3_b32 v49, v62, v13, v0
	v_or3_b32 v60, v63, v8, v0
	v_mfma_f32_16x16x16_bf16 v[24:27], v[14:15], v[24:25], 0
	v_lshlrev_b32_e32 v32, 5, v32
	v_cmp_gt_u32_e32 vcc, s8, v53
	v_mfma_f32_16x16x16_bf16 v[28:31], v[14:15], v[28:29], 0
	v_mfma_f32_16x16x16_bf16 v[36:39], v[14:15], v[36:37], 0
	v_mfma_f32_16x16x16_bf16 v[40:43], v[14:15], v[40:41], 0
	v_mfma_f32_16x16x16_bf16 v[44:47], v[14:15], v[44:45], 0
	v_or3_b32 v14, v48, v2, v0
	v_or3_b32 v15, v61, v12, v0
	ds_read_u16 v73, v14 offset:8192
	ds_read_u16 v74, v15 offset:8192
	ds_read_u16 v75, v49 offset:8192
	ds_read_u16 v76, v60 offset:8192
	ds_read_u16 v60, v60 offset:16384
	ds_read_u16 v49, v49 offset:16384
	ds_read_u16 v77, v15 offset:16384
	ds_read_u16 v78, v14 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v15, v73, v70, s0
	v_perm_b32 v14, v69, v68, s0
	v_or3_b32 v68, v62, v64, v0
	v_or3_b32 v69, v63, v10, v0
	v_mfma_f32_16x16x16_bf16 v[14:17], v[88:89], v[14:15], v[16:19]
	s_nop 2
	v_or3_b32 v18, v48, v9, v0
	v_or3_b32 v19, v61, v55, v0
	ds_read_u16 v70, v18 offset:8192
	ds_read_u16 v73, v19 offset:8192
	ds_read_u16 v79, v68 offset:8192
	ds_read_u16 v80, v69 offset:8192
	ds_read_u16 v69, v69 offset:16384
	ds_read_u16 v68, v68 offset:16384
	ds_read_u16 v81, v19 offset:16384
	ds_read_u16 v82, v18 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v19, v70, v76, s0
	v_perm_b32 v18, v75, v74, s0
	s_nop 1
	v_mfma_f32_16x16x16_bf16 v[18:21], v[88:89], v[18:19], v[20:23]
	s_nop 2
	v_or3_b32 v22, v48, v11, v0
	v_or3_b32 v23, v61, v65, v0
	v_or3_b32 v61, v62, v66, v0
	v_or3_b32 v62, v63, v33, v0
	ds_read_u16 v63, v22 offset:8192
	ds_read_u16 v70, v23 offset:8192
	ds_read_u16 v74, v61 offset:8192
	ds_read_u16 v75, v62 offset:8192
	ds_read_u16 v62, v62 offset:16384
	ds_read_u16 v61, v61 offset:16384
	ds_read_u16 v76, v23 offset:16384
	ds_read_u16 v83, v22 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v23, v63, v80, s0
	v_perm_b32 v22, v79, v73, s0
	v_or_b32_e32 v73, 0x1080, v34
	v_or3_b32 v79, v73, v7, v0
	v_mfma_f32_16x16x16_bf16 v[22:25], v[88:89], v[22:23], v[24:27]
	s_nop 2
	v_or_b32_e32 v27, 32, v53
	v_lshrrev_b32_e32 v27, 3, v27
	v_xor_b32_e32 v27, v27, v3
	v_lshl_or_b32 v27, v27, 4, v5
	v_or3_b32 v26, v48, v35, v0
	v_add_u32_e32 v27, v27, v4
	v_or_b32_e32 v48, 0x1000, v34
	v_or3_b32 v63, v48, v6, v0
	ds_read_u16 v80, v26 offset:8192
	ds_read_u16 v84, v26 offset:16384
	ds_read_b64 v[90:91], v27
	ds_read_u16 v85, v63 offset:8192
	ds_read_u16 v86, v79 offset:16384
	ds_read_u16 v87, v63 offset:16384
	s_waitcnt lgkmcnt(5)
	v_perm_b32 v27, v80, v75, s0
	v_perm_b32 v26, v74, v70, s0
	s_nop 1
	v_mfma_f32_16x16x16_bf16 v[26:29], v[88:89], v[26:27], v[28:31]
	s_nop 2
	v_perm_b32 v31, v78, v67, s0
	v_perm_b32 v30, v71, v72, s0
	s_nop 1
	v_mfma_f32_16x16x16_bf16 v[36:39], v[88:89], v[30:31], v[36:39]
	v_perm_b32 v30, v49, v77, s0
	v_or_b32_e32 v49, 0x1100, v34
	v_perm_b32 v31, v82, v60, s0
	v_or3_b32 v60, v49, v1, v0
	ds_read_u16 v63, v79 offset:8192
	ds_read_u16 v67, v60 offset:8192
	v_mfma_f32_16x16x16_bf16 v[40:43], v[88:89], v[30:31], v[40:43]
	v_perm_b32 v31, v83, v69, s0
	v_perm_b32 v30, v68, v81, s0
	v_or_b32_e32 v68, 0x1180, v34
	s_nop 0
	v_mfma_f32_16x16x16_bf16 v[44:47], v[88:89], v[30:31], v[44:47]
	s_waitcnt lgkmcnt(6)
	v_perm_b32 v31, v84, v62, s0
	v_perm_b32 v30, v61, v76, s0
	v_or3_b32 v61, v73, v13, v0
	v_or3_b32 v62, v49, v8, v0
	v_mfma_f32_16x16x16_bf16 v[56:59], v[88:89], v[30:31], v[56:59]
	v_or3_b32 v30, v68, v2, v0
	v_or3_b32 v31, v48, v12, v0
	ds_read_u16 v69, v30 offset:8192
	ds_read_u16 v70, v31 offset:8192
	ds_read_u16 v71, v61 offset:8192
	ds_read_u16 v72, v62 offset:8192
	ds_read_u16 v74, v61 offset:16384
	ds_read_u16 v75, v31 offset:16384
	ds_read_u16 v76, v30 offset:16384
	ds_read_u16 v77, v60 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v31, v69, v67, s0
	v_perm_b32 v30, v63, v85, s0
	v_or3_b32 v60, v73, v64, v0
	v_or3_b32 v61, v49, v10, v0
	v_mfma_f32_16x16x16_bf16 v[14:17], v[90:91], v[30:31], v[14:17]
	v_or3_b32 v30, v68, v9, v0
	v_or3_b32 v31, v48, v55, v0
	ds_read_u16 v63, v30 offset:8192
	ds_read_u16 v67, v31 offset:8192
	ds_read_u16 v69, v60 offset:8192
	ds_read_u16 v78, v61 offset:8192
	ds_read_u16 v79, v60 offset:16384
	ds_read_u16 v80, v31 offset:16384
	ds_read_u16 v81, v30 offset:16384
	ds_read_u16 v82, v62 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v31, v63, v72, s0
	v_perm_b32 v30, v71, v70, s0
	v_or3_b32 v49, v49, v33, v0
	s_nop 0
	v_mfma_f32_16x16x16_bf16 v[18:21], v[90:91], v[30:31], v[18:21]
	v_or3_b32 v30, v68, v11, v0
	v_or3_b32 v31, v48, v65, v0
	v_or3_b32 v48, v73, v66, v0
	ds_read_u16 v60, v30 offset:8192
	ds_read_u16 v70, v31 offset:8192
	ds_read_u16 v71, v48 offset:8192
	ds_read_u16 v72, v49 offset:8192
	ds_read_u16 v48, v48 offset:16384
	ds_read_u16 v73, v31 offset:16384
	ds_read_u16 v83, v30 offset:16384
	ds_read_u16 v84, v61 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v31, v60, v78, s0
	v_perm_b32 v30, v69, v67, s0
	v_or_b32_e32 v67, 0x1800, v34
	s_nop 0
	v_mfma_f32_16x16x16_bf16 v[60:63], v[90:91], v[30:31], v[22:25]
	s_nop 2
	v_or_b32_e32 v23, 48, v53
	v_lshrrev_b32_e32 v23, 3, v23
	v_xor_b32_e32 v3, v23, v3
	v_lshl_or_b32 v3, v3, 4, v5
	v_or3_b32 v22, v68, v35, v0
	v_add_u32_e32 v3, v3, v4
	v_or_b32_e32 v68, 0x1880, v34
	v_or3_b32 v4, v67, v6, v0
	v_or3_b32 v24, v68, v7, v0
	ds_read_u16 v5, v22 offset:8192
	ds_read_u16 v25, v22 offset:16384
	ds_read_b64 v[88:89], v3
	ds_read_u16 v30, v4 offset:8192
	ds_read_u16 v69, v24 offset:16384
	ds_read_u16 v78, v4 offset:16384
	ds_read_u16 v3, v49 offset:16384
	v_perm_b32 v23, v76, v77, s0
	v_perm_b32 v22, v86, v87, s0
	ds_read_u16 v24, v24 offset:8192
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v5, v5, v72, s0
	v_mfma_f32_16x16x16_bf16 v[36:39], v[90:91], v[22:23], v[36:39]
	v_perm_b32 v23, v81, v82, s0
	v_perm_b32 v22, v74, v75, s0
	v_perm_b32 v4, v71, v70, s0
	s_nop 0
	v_mfma_f32_16x16x16_bf16 v[40:43], v[90:91], v[22:23], v[40:43]
	v_perm_b32 v23, v83, v84, s0
	v_perm_b32 v22, v79, v80, s0
	v_mfma_f32_16x16x16_bf16 v[4:7], v[90:91], v[4:5], v[26:29]
	s_nop 0
	v_mfma_f32_16x16x16_bf16 v[44:47], v[90:91], v[22:23], v[44:47]
	s_waitcnt lgkmcnt(1)
	v_perm_b32 v23, v25, v3, s0
	v_perm_b32 v22, v48, v73, s0
	v_or3_b32 v3, v67, v12, v0
	v_or3_b32 v12, v68, v13, v0
	v_mfma_f32_16x16x16_bf16 v[56:59], v[90:91], v[22:23], v[56:59]
	v_or_b32_e32 v22, 0x1900, v34
	v_or_b32_e32 v23, 0x1980, v34
	v_or3_b32 v1, v22, v1, v0
	v_or3_b32 v2, v23, v2, v0
	ds_read_u16 v13, v1 offset:8192
	ds_read_u16 v25, v2 offset:8192
	ds_read_u16 v26, v3 offset:8192
	ds_read_u16 v27, v12 offset:8192
	ds_read_u16 v48, v12 offset:16384
	ds_read_u16 v49, v3 offset:16384
	ds_read_u16 v12, v2 offset:16384
	ds_read_u16 v70, v1 offset:16384
	s_waitcnt lgkmcnt(6)
	v_perm_b32 v3, v25, v13, s0
	v_perm_b32 v2, v24, v30, s0
	v_or3_b32 v1, v22, v8, v0
	v_or3_b32 v8, v68, v64, v0
	v_mfma_f32_16x16x16_bf16 v[28:31], v[88:89], v[2:3], v[14:17]
	v_or3_b32 v2, v23, v9, v0
	v_or3_b32 v3, v67, v55, v0
	ds_read_u16 v9, v1 offset:8192
	ds_read_u16 v13, v2 offset:8192
	ds_read_u16 v14, v3 offset:8192
	ds_read_u16 v15, v8 offset:8192
	ds_read_u16 v55, v8 offset:16384
	ds_read_u16 v64, v3 offset:16384
	ds_read_u16 v8, v2 offset:16384
	ds_read_u16 v71, v1 offset:16384
	s_waitcnt lgkmcnt(6)
	v_perm_b32 v3, v13, v9, s0
	v_perm_b32 v2, v27, v26, s0
	v_or3_b32 v1, v22, v10, v0
	v_or3_b32 v9, v68, v66, v0
	v_mfma_f32_16x16x16_bf16 v[24:27], v[88:89], v[2:3], v[18:21]
	v_or3_b32 v2, v23, v11, v0
	v_or3_b32 v3, v67, v65, v0
	ds_read_u16 v10, v1 offset:8192
	ds_read_u16 v11, v2 offset:8192
	ds_read_u16 v13, v3 offset:8192
	ds_read_u16 v16, v9 offset:8192
	ds_read_u16 v65, v9 offset:16384
	ds_read_u16 v3, v3 offset:16384
	ds_read_u16 v2, v2 offset:16384
	ds_read_u16 v66, v1 offset:16384
	v_or3_b32 v9, v22, v33, v0
	s_waitcnt lgkmcnt(6)
	v_perm_b32 v1, v11, v10, s0
	v_or3_b32 v10, v23, v35, v0
	ds_read_u16 v11, v9 offset:8192
	ds_read_u16 v17, v10 offset:8192
	v_perm_b32 v0, v15, v14, s0
	ds_read_u16 v33, v10 offset:16384
	ds_read_u16 v35, v9 offset:16384
	v_mfma_f32_16x16x16_bf16 v[20:23], v[88:89], v[0:1], v[60:63]
	s_waitcnt lgkmcnt(8)
	v_perm_b32 v0, v16, v13, s0
	s_waitcnt lgkmcnt(2)
	v_perm_b32 v1, v17, v11, s0
	v_or_b32_e32 v34, v34, v52
	v_lshlrev_b32_e32 v68, 2, v52
	v_mfma_f32_16x16x16_bf16 v[16:19], v[88:89], v[0:1], v[4:7]
	v_perm_b32 v1, v12, v70, s0
	v_perm_b32 v0, v69, v78, s0
	v_and_b32_e32 v70, 0xfffff800, v32
	v_or_b32_e32 v69, 16, v52
	v_mfma_f32_16x16x16_bf16 v[12:15], v[88:89], v[0:1], v[36:39]
	v_perm_b32 v1, v8, v71, s0
	v_perm_b32 v0, v48, v49, s0
	v_mov_b32_e32 v71, 0
	v_mov_b32_e32 v36, s6
	v_mfma_f32_16x16x16_bf16 v[8:11], v[88:89], v[0:1], v[40:43]
	v_perm_b32 v1, v2, v66, s0
	v_perm_b32 v0, v55, v64, s0
	v_mov_b32_e32 v37, s7
	v_lshlrev_b32_e32 v66, 2, v69
	v_mfma_f32_16x16x16_bf16 v[4:7], v[88:89], v[0:1], v[44:47]
	s_waitcnt lgkmcnt(0)
	v_perm_b32 v1, v33, v35, s0
	v_lshl_add_u64 v[32:33], v[70:71], 2, v[36:37]
	v_lshlrev_b32_e32 v70, 2, v34
	v_lshl_add_u64 v[48:49], v[32:33], 0, v[70:71]
	v_lshl_or_b32 v70, v54, 9, v68
	v_lshl_add_u64 v[34:35], v[32:33], 0, v[70:71]
	v_lshl_or_b32 v70, v51, 9, v68
	v_lshl_add_u64 v[36:37], v[32:33], 0, v[70:71]
	v_lshl_or_b32 v70, v50, 9, v68
	v_lshl_add_u64 v[38:39], v[32:33], 0, v[70:71]
	global_store_dword v[48:49], v28, off
	global_store_dword v[34:35], v29, off
	global_store_dword v[36:37], v30, off
	global_store_dword v[38:39], v31, off
	v_lshlrev_b32_e32 v34, 9, v53
	v_or_b32_e32 v67, 32, v52
	v_perm_b32 v0, v65, v3, s0
	v_or_b32_e32 v70, v34, v66
	v_lshlrev_b32_e32 v64, 2, v67
	v_or_b32_e32 v65, 48, v52
	v_lshl_add_u64 v[46:47], v[32:33], 0, v[70:71]
	v_or_b32_e32 v70, v34, v64
	v_lshlrev_b32_e32 v62, 2, v65
	v_or_b32_e32 v63, 64, v52
	v_lshl_add_u64 v[44:45], v[32:33], 0, v[70:71]
	v_or_b32_e32 v70, v34, v62
	v_lshlrev_b32_e32 v60, 2, v63
	v_or_b32_e32 v61, 0x50, v52
	v_mfma_f32_16x16x16_bf16 v[0:3], v[88:89], v[0:1], v[56:59]
	v_lshl_add_u64 v[42:43], v[32:33], 0, v[70:71]
	v_or_b32_e32 v70, v34, v60
	v_lshl_add_u64 v[40:41], v[32:33], 0, v[70:71]
	v_lshlrev_b32_e32 v58, 2, v61
	v_or_b32_e32 v59, 0x60, v52
	v_or_b32_e32 v70, v34, v58
	v_lshlrev_b32_e32 v56, 2, v59
	v_or_b32_e32 v57, 0x70, v52
	v_lshl_add_u64 v[38:39], v[32:33], 0, v[70:71]
	v_or_b32_e32 v70, v34, v56
	v_lshlrev_b32_e32 v55, 2, v57
	v_lshl_add_u64 v[36:37], v[32:33], 0, v[70:71]
	v_or_b32_e32 v70, v34, v55
	v_cmp_gt_u32_e64 s[6:7], s9, v52
	v_lshl_add_u64 v[34:35], v[32:33], 0, v[70:71]
	s_and_b64 s[2:3], s[6:7], vcc
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
	v_cmp_gt_u32_e64 s[0:1], s8, v54
	v_lshlrev_b32_e32 v28, 9, v54
	s_and_b64 s[4:5], s[6:7], s[0:1]
	s_and_saveexec_b64 s[2:3], s[4:5]
	s_cbranch_execz .LBB0_22
	v_or_b32_e32 v48, v28, v68
	v_mov_b32_e32 v49, 0
	v_lshl_add_u64 v[48:49], v[32:33], 0, v[48:49]
	global_store_dword v[48:49], v29, off
.LBB0_22:
	s_or_b64 exec, exec, s[2:3]
	v_cmp_gt_u32_e64 s[2:3], s8, v51
	v_lshlrev_b32_e32 v29, 9, v51
	s_and_b64 s[10:11], s[6:7], s[2:3]
	s_and_saveexec_b64 s[4:5], s[10:11]
	s_cbranch_execz .LBB0_24
	v_or_b32_e32 v48, v29, v68
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
	v_or_b32_e32 v48, v30, v68
	v_mov_b32_e32 v49, 0
	v_lshl_add_u64 v[48:49], v[32:33], 0, v[48:49]
	global_store_dword v[48:49], v31, off
.LBB0_26:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v69
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
	v_or_b32_e32 v24, v30, v66
	v_mov_b32_e32 v25, 0
	v_lshl_add_u64 v[24:25], v[32:33], 0, v[24:25]
	global_store_dword v[24:25], v27, off
.LBB0_31:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v67
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
	v_or_b32_e32 v20, v30, v64
	v_mov_b32_e32 v21, 0
	v_lshl_add_u64 v[20:21], v[32:33], 0, v[20:21]
	global_store_dword v[20:21], v23, off
.LBB0_36:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v65
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
	v_or_b32_e32 v16, v30, v62
	v_mov_b32_e32 v17, 0
	v_lshl_add_u64 v[16:17], v[32:33], 0, v[16:17]
	global_store_dword v[16:17], v19, off
.LBB0_41:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v63
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
	v_or_b32_e32 v12, v30, v60
	v_mov_b32_e32 v13, 0
	v_lshl_add_u64 v[12:13], v[32:33], 0, v[12:13]
	global_store_dword v[12:13], v15, off
.LBB0_46:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v61
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
	v_or_b32_e32 v8, v30, v58
	v_mov_b32_e32 v9, 0
	v_lshl_add_u64 v[8:9], v[32:33], 0, v[8:9]
	global_store_dword v[8:9], v11, off
.LBB0_51:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v59
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
	v_or_b32_e32 v4, v30, v56
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v7, off
.LBB0_56:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v57
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
	v_or_b32_e32 v46, v28, v66
	v_mov_b32_e32 v47, 0
	v_lshl_add_u64 v[46:47], v[32:33], 0, v[46:47]
	global_store_dword v[46:47], v25, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_29
.LBB0_63:
	v_or_b32_e32 v24, v29, v66
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
	v_or_b32_e32 v24, v28, v64
	v_mov_b32_e32 v25, 0
	v_lshl_add_u64 v[24:25], v[32:33], 0, v[24:25]
	global_store_dword v[24:25], v21, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_34
.LBB0_66:
	v_or_b32_e32 v20, v29, v64
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
	v_or_b32_e32 v20, v28, v62
	v_mov_b32_e32 v21, 0
	v_lshl_add_u64 v[20:21], v[32:33], 0, v[20:21]
	global_store_dword v[20:21], v17, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_39
.LBB0_69:
	v_or_b32_e32 v16, v29, v62
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
	v_or_b32_e32 v16, v28, v60
	v_mov_b32_e32 v17, 0
	v_lshl_add_u64 v[16:17], v[32:33], 0, v[16:17]
	global_store_dword v[16:17], v13, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_44
.LBB0_72:
	v_or_b32_e32 v12, v29, v60
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
	v_or_b32_e32 v12, v28, v58
	v_mov_b32_e32 v13, 0
	v_lshl_add_u64 v[12:13], v[32:33], 0, v[12:13]
	global_store_dword v[12:13], v9, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_49
.LBB0_75:
	v_or_b32_e32 v8, v29, v58
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
	v_or_b32_e32 v8, v28, v56
	v_mov_b32_e32 v9, 0
	v_lshl_add_u64 v[8:9], v[32:33], 0, v[8:9]
	global_store_dword v[8:9], v5, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_54
.LBB0_78:
	v_or_b32_e32 v4, v29, v56
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
	v_or_b32_e32 v4, v28, v55
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v1, off
	s_or_b64 exec, exec, s[0:1]
	s_and_b64 s[2:3], s[6:7], s[2:3]
	s_and_saveexec_b64 s[0:1], s[2:3]
	s_cbranch_execz .LBB0_59
.LBB0_81:
	v_or_b32_e32 v0, v29, v55
	v_mov_b32_e32 v1, 0
	v_lshl_add_u64 v[0:1], v[32:33], 0, v[0:1]
	global_store_dword v[0:1], v2, off
	s_or_b64 exec, exec, s[0:1]
	s_and_b64 s[0:1], s[6:7], s[4:5]
	s_and_saveexec_b64 s[2:3], s[0:1]
	s_cbranch_execz .LBB0_60
.LBB0_82:
	v_or_b32_e32 v0, v30, v55
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
		.amdhsa_next_free_vgpr 97
		.amdhsa_next_free_sgpr 96
		.amdhsa_accum_offset 92
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

	.set group_product.num_vgpr, 92
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
    .vgpr_count:     92
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
