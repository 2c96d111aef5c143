	.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
	.amdhsa_code_object_version 5
	.text
	.globl	group_product
	.p2align	8
	.type	group_product,@function
group_product:
	s_load_dword s10, s[0:1], 0x4
	s_load_dwordx4 s[4:7], s[2:3], 0x0
	s_load_dwordx2 s[8:9], s[2:3], 0x10
	v_and_b32_e32 v6, 0x3ff, v0
	v_lshlrev_b32_e32 v1, 2, v6
	s_waitcnt lgkmcnt(0)
	s_and_b32 s16, s10, 0xffff
	s_lshl_b32 s17, s16, 2
	v_sub_u32_e32 v2, s17, v1
	s_movk_i32 s18, 0x1800
	v_add_u32_e32 v7, 0x1800, v2
	v_lshlrev_b32_e32 v8, 4, v6
	s_lshl_b32 s19, s16, 4
	s_mov_b64 s[2:3], 0
	s_branch .LBB0_3
.LBB0_1:
	s_or_b64 exec, exec, s[14:15]
	v_subrev_u32_e32 v7, s17, v7
	v_cmp_ge_u32_e32 vcc, s17, v7
	s_andn2_b64 s[10:11], s[10:11], exec
	s_and_b64 s[14:15], vcc, exec
	s_waitcnt vmcnt(0)
	ds_write_b128 v8, v[2:5]
	v_add_u32_e32 v1, s17, v1
	v_add_u32_e32 v8, s19, v8
	s_or_b64 s[10:11], s[10:11], s[14:15]
.LBB0_2:
	s_or_b64 exec, exec, s[12:13]
	s_and_b64 s[12:13], exec, s[10:11]
	s_or_b64 s[2:3], s[12:13], s[2:3]
	s_andn2_b64 exec, exec, s[2:3]
	s_cbranch_execz .LBB0_6
.LBB0_3:
	v_cmp_gt_u32_e32 vcc, s18, v1
	s_or_b64 s[10:11], s[10:11], exec
	s_and_saveexec_b64 s[12:13], vcc
	s_cbranch_execz .LBB0_2
	v_cmp_gt_u32_e32 vcc, s8, v1
	v_mov_b32_e32 v2, 0
	v_mov_b32_e32 v3, 0
	v_mov_b32_e32 v4, 0
	v_mov_b32_e32 v5, 0
	s_and_saveexec_b64 s[14:15], vcc
	s_cbranch_execz .LBB0_1
	global_load_dwordx4 v[2:5], v8, s[4:5]
	s_branch .LBB0_1
.LBB0_6:
	s_or_b64 exec, exec, s[2:3]
	s_waitcnt lgkmcnt(0)
	s_barrier
	s_load_dword s0, s[0:1], 0x4
	v_bfe_u32 v1, v0, 10, 10
	v_bfe_u32 v0, v0, 20, 10
	s_waitcnt lgkmcnt(0)
	s_lshr_b32 s0, s0, 16
	v_mad_u32_u24 v0, v0, s0, v1
	v_mad_u64_u32 v[32:33], s[0:1], v0, s16, v[6:7]
	v_lshrrev_b32_e32 v2, 2, v32
	v_and_b32_e32 v34, 12, v2
	v_lshlrev_b32_e32 v4, 1, v32
	v_and_b32_e32 v1, 4, v2
	v_bfe_u32 v0, v32, 3, 1
	v_and_b32_e32 v12, 14, v4
	v_bitop3_b32 v4, v34, 6, 2 bitop3:0xc8
	v_or_b32_e32 v3, v0, v1
	v_lshlrev_b32_e32 v36, 7, v34
	v_or_b32_e32 v51, 1, v34
	v_or_b32_e32 v4, v4, v0
	v_or_b32_e32 v50, 3, v34
	v_lshlrev_b32_e32 v15, 4, v3
	v_bitop3_b32 v3, v51, v0, 5 bitop3:0x6c
	v_lshlrev_b32_e32 v13, 4, v4
	v_or_b32_e32 v4, 0x100, v36
	v_bitop3_b32 v5, v50, v0, 7 bitop3:0x6c
	v_lshlrev_b32_e32 v16, 4, v3
	v_or_b32_e32 v3, 0x80, v36
	v_or3_b32 v9, v4, v13, v12
	v_lshlrev_b32_e32 v14, 4, v5
	v_or_b32_e32 v6, 0x180, v36
	v_or3_b32 v7, v36, v15, v12
	v_or3_b32 v8, v3, v16, v12
	v_or3_b32 v5, v6, v14, v12
	s_mov_b32 s0, 0x5040100
	ds_read_u16 v10, v9 offset:8192
	ds_read_u16 v11, v5 offset:8192
	ds_read_u16 v17, v7 offset:8192
	ds_read_u16 v18, v8 offset:8192
	ds_read_u16 v25, v9 offset:16384
	ds_read_u16 v33, v8 offset:16384
	v_and_b32_e32 v35, 15, v32
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v9, v11, v10, s0
	v_bfe_u32 v10, v2, 3, 1
	v_and_or_b32 v8, v2, 48, v35
	v_bitop3_b32 v10, v10, v32, 7 bitop3:0x78
	v_lshlrev_b32_e32 v37, 7, v8
	v_lshlrev_b32_e32 v53, 1, v1
	v_lshlrev_b32_e32 v8, 4, v10
	v_or_b32_e32 v52, 2, v34
	v_or3_b32 v8, v8, v53, v37
	ds_read_u16 v42, v7 offset:16384
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
	v_or3_b32 v10, v36, v64, v12
	v_or3_b32 v30, v6, v24, v12
	v_or3_b32 v7, v3, v65, v12
	ds_read_u16 v11, v17 offset:8192
	ds_read_u16 v18, v30 offset:8192
	ds_read_u16 v28, v10 offset:8192
	ds_read_u16 v29, v7 offset:8192
	ds_read_u16 v46, v17 offset:16384
	ds_read_u16 v47, v7 offset:16384
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
	v_or3_b32 v38, v4, v19, v12
	v_lshlrev_b32_e32 v21, 4, v1
	v_bitop3_b32 v1, v51, v11, 5 bitop3:0x6c
	v_lshlrev_b32_e32 v17, 4, v0
	v_bitop3_b32 v0, v50, v11, 7 bitop3:0x6c
	v_or3_b32 v31, v36, v66, v12
	v_or3_b32 v2, v3, v67, v12
	v_or3_b32 v40, v6, v20, v12
	v_lshlrev_b32_e32 v22, 4, v1
	v_lshlrev_b32_e32 v18, 4, v0
	ds_read_u16 v48, v10 offset:16384
	ds_read_u16 v45, v5 offset:16384
	ds_read_u16 v0, v38 offset:8192
	ds_read_u16 v1, v40 offset:8192
	ds_read_u16 v10, v31 offset:8192
	ds_read_u16 v49, v2 offset:8192
	ds_read_u16 v54, v38 offset:16384
	ds_read_u16 v55, v2 offset:16384
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v11, v1, v0, s0
	v_or_b32_e32 v0, 16, v34
	v_lshrrev_b32_e32 v0, 3, v0
	v_bitop3_b32 v0, v0, v32, 7 bitop3:0x78
	v_lshl_or_b32 v0, v0, 4, v53
	v_or3_b32 v39, v3, v22, v12
	v_or3_b32 v44, v6, v18, v12
	v_perm_b32 v6, v29, v28, s0
	v_or_b32_e32 v38, 0x800, v36
	v_or_b32_e32 v56, 0x880, v36
	v_or_b32_e32 v58, 0x980, v36
	v_add_u32_e32 v28, v0, v37
	v_mfma_f32_16x16x16_bf16 v[0:3], v[26:27], v[8:9], 0
	v_or3_b32 v43, v4, v17, v12
	v_or3_b32 v4, v56, v16, v12
	v_or_b32_e32 v57, 0x900, v36
	v_or3_b32 v59, v58, v14, v12
	v_or3_b32 v60, v38, v64, v12
	v_or3_b32 v62, v56, v65, v12
	v_or3_b32 v5, v57, v13, v12
	v_or3_b32 v61, v38, v15, v12
	v_or3_b32 v8, v57, v23, v12
	ds_read_u16 v9, v4 offset:8192
	ds_read_u16 v63, v5 offset:8192
	ds_read_b64 v[28:29], v28
	ds_read_u16 v68, v61 offset:8192
	ds_read_u16 v69, v5 offset:16384
	ds_read_u16 v70, v4 offset:16384
	ds_read_u16 v4, v59 offset:8192
	ds_read_u16 v71, v60 offset:8192
	ds_read_u16 v72, v8 offset:8192
	ds_read_u16 v73, v62 offset:8192
	ds_read_u16 v74, v8 offset:16384
	ds_read_u16 v62, v62 offset:16384
	ds_read_u16 v60, v60 offset:16384
	ds_read_u16 v59, v59 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v5, v4, v63, s0
	v_perm_b32 v4, v9, v68, s0
	v_or3_b32 v8, v58, v24, v12
	v_or3_b32 v9, v57, v19, v12
	v_mfma_f32_16x16x16_bf16 v[0:3], v[28:29], v[4:5], v[0:3]
	ds_read_u16 v68, v31 offset:16384
	ds_read_u16 v75, v30 offset:16384
	v_perm_b32 v10, v49, v10, s0
	v_or3_b32 v30, v38, v66, v12
	v_mfma_f32_16x16x16_bf16 v[4:7], v[26:27], v[6:7], 0
	v_or3_b32 v31, v56, v67, v12
	ds_read_u16 v49, v8 offset:8192
	ds_read_u16 v76, v9 offset:8192
	ds_read_u16 v77, v30 offset:8192
	ds_read_u16 v78, v31 offset:8192
	ds_read_u16 v79, v9 offset:16384
	ds_read_u16 v80, v31 offset:16384
	ds_read_u16 v81, v30 offset:16384
	ds_read_u16 v82, v8 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v9, v49, v72, s0
	v_perm_b32 v8, v73, v71, s0
	v_or3_b32 v41, v36, v21, v12
	ds_read_u16 v61, v61 offset:16384
	ds_read_u16 v63, v44 offset:16384
	v_mfma_f32_16x16x16_bf16 v[4:7], v[28:29], v[8:9], v[4:7]
	ds_read_u16 v8, v43 offset:8192
	ds_read_u16 v9, v44 offset:8192
	ds_read_u16 v30, v41 offset:8192
	ds_read_u16 v44, v39 offset:8192
	ds_read_u16 v71, v43 offset:16384
	ds_read_u16 v72, v39 offset:16384
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v31, v9, v8, s0
	v_or3_b32 v39, v58, v20, v12
	v_mfma_f32_16x16x16_bf16 v[8:11], v[26:27], v[10:11], 0
	v_or3_b32 v38, v38, v21, v12
	v_or3_b32 v43, v56, v22, v12
	v_or3_b32 v49, v57, v17, v12
	ds_read_u16 v56, v39 offset:8192
	ds_read_u16 v57, v49 offset:8192
	ds_read_u16 v73, v38 offset:8192
	ds_read_u16 v83, v43 offset:8192
	ds_read_u16 v84, v49 offset:16384
	ds_read_u16 v85, v43 offset:16384
	ds_read_u16 v86, v38 offset:16384
	ds_read_u16 v87, v39 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v39, v56, v76, s0
	v_perm_b32 v38, v78, v77, s0
	v_perm_b32 v30, v44, v30, s0
	ds_read_u16 v76, v41 offset:16384
	ds_read_u16 v56, v40 offset:16384
	v_mfma_f32_16x16x16_bf16 v[8:11], v[28:29], v[38:39], v[8:11]
	v_or3_b32 v43, v58, v18, v12
	v_or_b32_e32 v77, 0x1000, v36
	v_or_b32_e32 v78, 0x1080, v36
	v_mfma_f32_16x16x16_bf16 v[38:41], v[26:27], v[30:31], 0
	v_or_b32_e32 v30, 32, v34
	v_lshrrev_b32_e32 v30, 3, v30
	v_bitop3_b32 v30, v30, v32, 7 bitop3:0x78
	v_lshl_or_b32 v30, v30, 4, v53
	v_or3_b32 v58, v77, v15, v12
	v_or3_b32 v88, v78, v16, v12
	v_add_u32_e32 v30, v30, v37
	ds_read_u16 v31, v43 offset:8192
	ds_read_u16 v89, v43 offset:16384
	ds_read_u16 v90, v88 offset:16384
	ds_read_u16 v91, v58 offset:16384
	ds_read_b64 v[92:93], v30
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v31, v31, v57, s0
	v_perm_b32 v30, v83, v73, s0
	v_cmp_gt_u32_e32 vcc, s8, v34
	s_nop 0
	v_mfma_f32_16x16x16_bf16 v[38:41], v[28:29], v[30:31], v[38:41]
	v_perm_b32 v31, v45, v25, s0
	v_perm_b32 v30, v33, v42, s0
	v_or_b32_e32 v25, 0x1100, v36
	v_or3_b32 v33, v25, v13, v12
	v_mfma_f32_16x16x16_bf16 v[42:45], v[26:27], v[30:31], 0
	v_perm_b32 v31, v59, v69, s0
	v_perm_b32 v30, v70, v61, s0
	s_nop 1
	v_mfma_f32_16x16x16_bf16 v[42:45], v[28:29], v[30:31], v[42:45]
	v_perm_b32 v31, v75, v46, s0
	v_perm_b32 v30, v47, v48, s0
	s_nop 1
	v_mfma_f32_16x16x16_bf16 v[46:49], v[26:27], v[30:31], 0
	v_perm_b32 v31, v82, v74, s0
	v_perm_b32 v30, v62, v60, s0
	v_perm_b32 v62, v85, v86, s0
	s_nop 0
	v_mfma_f32_16x16x16_bf16 v[46:49], v[28:29], v[30:31], v[46:49]
	v_perm_b32 v31, v56, v54, s0
	v_perm_b32 v30, v55, v68, s0
	ds_read_u16 v68, v58 offset:8192
	ds_read_u16 v69, v88 offset:8192
	ds_read_u16 v70, v33 offset:8192
	v_mfma_f32_16x16x16_bf16 v[54:57], v[26:27], v[30:31], 0
	v_perm_b32 v31, v87, v79, s0
	v_perm_b32 v30, v80, v81, s0
	s_nop 1
	v_mfma_f32_16x16x16_bf16 v[54:57], v[28:29], v[30:31], v[54:57]
	v_perm_b32 v31, v63, v71, s0
	v_perm_b32 v30, v72, v76, s0
	s_waitcnt lgkmcnt(6)
	v_perm_b32 v63, v89, v84, s0
	v_or_b32_e32 v71, 0x1180, v36
	v_mfma_f32_16x16x16_bf16 v[58:61], v[26:27], v[30:31], 0
	v_or3_b32 v30, v71, v14, v12
	v_or3_b32 v31, v77, v64, v12
	v_mfma_f32_16x16x16_bf16 v[26:29], v[28:29], v[62:63], v[58:61]
	s_nop 4
	v_or3_b32 v59, v78, v65, v12
	v_or3_b32 v58, v25, v23, v12
	ds_read_u16 v60, v30 offset:8192
	ds_read_u16 v61, v58 offset:8192
	ds_read_u16 v62, v31 offset:8192
	ds_read_u16 v63, v59 offset:8192
	ds_read_u16 v59, v59 offset:16384
	ds_read_u16 v72, v31 offset:16384
	ds_read_u16 v73, v30 offset:16384
	ds_read_u16 v33, v33 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v31, v60, v70, s0
	v_perm_b32 v30, v69, v68, s0
	v_or3_b32 v68, v78, v67, v12
	v_or3_b32 v60, v25, v19, v12
	v_mfma_f32_16x16x16_bf16 v[0:3], v[92:93], v[30:31], v[0:3]
	v_or3_b32 v30, v71, v24, v12
	v_or3_b32 v31, v77, v66, v12
	ds_read_u16 v69, v30 offset:8192
	ds_read_u16 v70, v60 offset:8192
	ds_read_u16 v74, v31 offset:8192
	ds_read_u16 v75, v68 offset:8192
	ds_read_u16 v68, v68 offset:16384
	ds_read_u16 v76, v31 offset:16384
	ds_read_u16 v79, v30 offset:16384
	ds_read_u16 v58, v58 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v31, v69, v61, s0
	v_perm_b32 v30, v63, v62, s0
	v_or3_b32 v61, v78, v22, v12
	v_or3_b32 v25, v25, v17, v12
	v_mfma_f32_16x16x16_bf16 v[4:7], v[92:93], v[30:31], v[4:7]
	v_or3_b32 v30, v71, v20, v12
	v_or3_b32 v31, v77, v21, v12
	ds_read_u16 v62, v30 offset:8192
	ds_read_u16 v63, v25 offset:8192
	ds_read_u16 v69, v31 offset:8192
	ds_read_u16 v77, v61 offset:8192
	ds_read_u16 v61, v61 offset:16384
	ds_read_u16 v78, v31 offset:16384
	ds_read_u16 v80, v30 offset:16384
	ds_read_u16 v60, v60 offset:16384
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v31, v62, v70, s0
	v_perm_b32 v30, v75, v74, s0
	v_or_b32_e32 v62, 0x1800, v36
	v_or3_b32 v15, v62, v15, v12
	v_mfma_f32_16x16x16_bf16 v[8:11], v[92:93], v[30:31], v[8:11]
	v_or3_b32 v30, v71, v18, v12
	v_or_b32_e32 v70, 0x1880, v36
	v_or3_b32 v16, v70, v16, v12
	ds_read_u16 v31, v30 offset:8192
	ds_read_u16 v71, v15 offset:8192
	ds_read_u16 v74, v15 offset:16384
	ds_read_u16 v75, v16 offset:8192
	ds_read_u16 v15, v30 offset:16384
	ds_read_u16 v25, v25 offset:16384
	s_waitcnt lgkmcnt(5)
	v_perm_b32 v31, v31, v63, s0
	v_perm_b32 v30, v77, v69, s0
	v_mov_b32_e32 v69, 0
	s_nop 0
	v_mfma_f32_16x16x16_bf16 v[38:41], v[92:93], v[30:31], v[38:41]
	v_perm_b32 v31, v73, v33, s0
	v_perm_b32 v30, v90, v91, s0
	s_nop 1
	v_mfma_f32_16x16x16_bf16 v[42:45], v[92:93], v[30:31], v[42:45]
	v_or_b32_e32 v30, 48, v34
	v_lshrrev_b32_e32 v30, 3, v30
	v_bitop3_b32 v30, v30, v32, 7 bitop3:0x78
	v_lshl_or_b32 v33, v30, 4, v53
	v_perm_b32 v31, v79, v58, s0
	v_perm_b32 v30, v59, v72, s0
	v_add_u32_e32 v33, v33, v37
	ds_read_b64 v[72:73], v33
	ds_read_u16 v33, v16 offset:16384
	v_mfma_f32_16x16x16_bf16 v[46:49], v[92:93], v[30:31], v[46:49]
	v_perm_b32 v31, v80, v60, s0
	v_perm_b32 v30, v68, v76, s0
	v_or_b32_e32 v16, 0x1900, v36
	v_or_b32_e32 v37, 0x1980, v36
	v_mfma_f32_16x16x16_bf16 v[54:57], v[92:93], v[30:31], v[54:57]
	s_waitcnt lgkmcnt(2)
	v_perm_b32 v31, v15, v25, s0
	v_perm_b32 v30, v61, v78, s0
	v_or3_b32 v13, v16, v13, v12
	v_or3_b32 v14, v37, v14, v12
	v_or3_b32 v25, v70, v65, v12
	v_mfma_f32_16x16x16_bf16 v[58:61], v[92:93], v[30:31], v[26:29]
	v_or3_b32 v15, v62, v64, v12
	s_nop 1
	ds_read_u16 v26, v14 offset:8192
	ds_read_u16 v27, v13 offset:8192
	ds_read_u16 v53, v25 offset:16384
	ds_read_u16 v63, v15 offset:16384
	ds_read_u16 v64, v14 offset:16384
	ds_read_u16 v25, v25 offset:8192
	ds_read_u16 v65, v15 offset:8192
	ds_read_u16 v13, v13 offset:16384
	s_waitcnt lgkmcnt(6)
	v_perm_b32 v15, v26, v27, s0
	v_perm_b32 v14, v75, v71, s0
	v_lshlrev_b32_e32 v32, 5, v32
	v_or_b32_e32 v36, v36, v35
	v_mfma_f32_16x16x16_bf16 v[28:31], v[72:73], v[14:15], v[0:3]
	s_nop 2
	v_or3_b32 v1, v37, v24, v12
	v_or3_b32 v0, v16, v23, v12
	v_or3_b32 v2, v62, v66, v12
	v_or3_b32 v3, v70, v67, v12
	ds_read_u16 v14, v1 offset:8192
	ds_read_u16 v15, v0 offset:8192
	ds_read_u16 v66, v1 offset:16384
	ds_read_u16 v23, v3 offset:8192
	ds_read_u16 v67, v2 offset:8192
	ds_read_u16 v68, v0 offset:16384
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v1, v14, v15, s0
	v_perm_b32 v0, v25, v65, s0
	ds_read_u16 v2, v2 offset:16384
	ds_read_u16 v3, v3 offset:16384
	v_mfma_f32_16x16x16_bf16 v[24:27], v[72:73], v[0:1], v[4:7]
	v_or3_b32 v1, v37, v20, v12
	v_or3_b32 v0, v16, v19, v12
	s_nop 0
	v_or3_b32 v4, v62, v21, v12
	v_or3_b32 v5, v70, v22, v12
	ds_read_u16 v6, v1 offset:8192
	ds_read_u16 v7, v0 offset:8192
	ds_read_u16 v62, v1 offset:16384
	ds_read_u16 v14, v5 offset:8192
	ds_read_u16 v15, v4 offset:8192
	ds_read_u16 v65, v0 offset:16384
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v1, v6, v7, s0
	v_or3_b32 v6, v16, v17, v12
	v_or3_b32 v7, v37, v18, v12
	ds_read_u16 v12, v6 offset:8192
	ds_read_u16 v16, v7 offset:8192
	v_perm_b32 v0, v23, v67, s0
	ds_read_u16 v37, v7 offset:16384
	ds_read_u16 v67, v6 offset:16384
	v_mfma_f32_16x16x16_bf16 v[20:23], v[72:73], v[0:1], v[8:11]
	s_waitcnt lgkmcnt(5)
	v_perm_b32 v0, v14, v15, s0
	s_waitcnt lgkmcnt(2)
	v_perm_b32 v1, v16, v12, s0
	v_lshlrev_b32_e32 v70, 9, v34
	s_nop 0
	v_mfma_f32_16x16x16_bf16 v[16:19], v[72:73], v[0:1], v[38:41]
	v_perm_b32 v0, v33, v74, s0
	ds_read_u16 v33, v4 offset:16384
	s_nop 0
	ds_read_u16 v40, v5 offset:16384
	v_perm_b32 v1, v64, v13, s0
	v_mov_b32_e32 v38, s6
	v_mov_b32_e32 v39, s7
	v_mfma_f32_16x16x16_bf16 v[12:15], v[72:73], v[0:1], v[42:45]
	v_perm_b32 v1, v66, v68, s0
	v_perm_b32 v0, v53, v63, s0
	v_and_b32_e32 v68, 0xfffff800, v32
	v_lshlrev_b32_e32 v66, 2, v35
	v_mfma_f32_16x16x16_bf16 v[8:11], v[72:73], v[0:1], v[46:49]
	v_perm_b32 v1, v62, v65, s0
	v_perm_b32 v0, v3, v2, s0
	v_or_b32_e32 v65, 32, v35
	v_lshlrev_b32_e32 v62, 2, v65
	v_mfma_f32_16x16x16_bf16 v[4:7], v[72:73], v[0:1], v[54:57]
	s_waitcnt lgkmcnt(0)
	v_perm_b32 v0, v40, v33, s0
	v_lshl_add_u64 v[32:33], v[68:69], 2, v[38:39]
	v_lshlrev_b32_e32 v68, 2, v36
	v_lshl_add_u64 v[48:49], v[32:33], 0, v[68:69]
	v_lshl_or_b32 v68, v51, 9, v66
	v_perm_b32 v1, v37, v67, s0
	v_lshl_add_u64 v[36:37], v[32:33], 0, v[68:69]
	v_lshl_or_b32 v68, v52, 9, v66
	v_or_b32_e32 v67, 16, v35
	v_lshl_add_u64 v[38:39], v[32:33], 0, v[68:69]
	v_lshl_or_b32 v68, v50, 9, v66
	v_lshlrev_b32_e32 v64, 2, v67
	v_lshl_add_u64 v[40:41], v[32:33], 0, v[68:69]
	v_or_b32_e32 v68, v70, v64
	v_or_b32_e32 v63, 48, v35
	v_mfma_f32_16x16x16_bf16 v[0:3], v[72:73], v[0:1], v[58:61]
	v_lshl_add_u64 v[46:47], v[32:33], 0, v[68:69]
	v_or_b32_e32 v68, v70, v62
	v_lshl_add_u64 v[44:45], v[32:33], 0, v[68:69]
	v_lshlrev_b32_e32 v60, 2, v63
	v_or_b32_e32 v61, 64, v35
	v_or_b32_e32 v68, v70, v60
	v_lshlrev_b32_e32 v58, 2, v61
	v_or_b32_e32 v59, 0x50, v35
	v_lshl_add_u64 v[42:43], v[32:33], 0, v[68:69]
	v_or_b32_e32 v68, v70, v58
	v_lshlrev_b32_e32 v56, 2, v59
	v_or_b32_e32 v57, 0x60, v35
	global_store_dword v[36:37], v29, off
	global_store_dword v[38:39], v30, off
	global_store_dword v[40:41], v31, off
	v_lshl_add_u64 v[40:41], v[32:33], 0, v[68:69]
	v_or_b32_e32 v68, v70, v56
	v_lshlrev_b32_e32 v54, 2, v57
	v_or_b32_e32 v55, 0x70, v35
	v_lshl_add_u64 v[38:39], v[32:33], 0, v[68:69]
	v_or_b32_e32 v68, v70, v54
	v_lshlrev_b32_e32 v53, 2, v55
	v_lshl_add_u64 v[36:37], v[32:33], 0, v[68:69]
	v_or_b32_e32 v68, v70, v53
	v_cmp_gt_u32_e64 s[6:7], s9, v35
	v_lshl_add_u64 v[34:35], v[32:33], 0, v[68:69]
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
	s_cbranch_execz .LBB0_8
	global_store_dword v[48:49], v28, off
.LBB0_8:
	s_or_b64 exec, exec, s[0:1]
	v_cmp_gt_u32_e64 s[0:1], s8, v51
	v_lshlrev_b32_e32 v28, 9, v51
	s_and_b64 s[4:5], s[6:7], s[0:1]
	s_and_saveexec_b64 s[2:3], s[4:5]
	s_cbranch_execz .LBB0_10
	v_or_b32_e32 v48, v28, v66
	v_mov_b32_e32 v49, 0
	v_lshl_add_u64 v[48:49], v[32:33], 0, v[48:49]
	global_store_dword v[48:49], v29, off
.LBB0_10:
	s_or_b64 exec, exec, s[2:3]
	v_cmp_gt_u32_e64 s[2:3], s8, v52
	v_lshlrev_b32_e32 v29, 9, v52
	s_and_b64 s[10:11], s[6:7], s[2:3]
	s_and_saveexec_b64 s[4:5], s[10:11]
	s_cbranch_execz .LBB0_12
	v_or_b32_e32 v48, v29, v66
	v_mov_b32_e32 v49, 0
	v_lshl_add_u64 v[48:49], v[32:33], 0, v[48:49]
	global_store_dword v[48:49], v30, off
.LBB0_12:
	s_or_b64 exec, exec, s[4:5]
	v_cmp_gt_u32_e64 s[4:5], s8, v50
	v_lshlrev_b32_e32 v30, 9, v50
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execz .LBB0_14
	v_or_b32_e32 v48, v30, v66
	v_mov_b32_e32 v49, 0
	v_lshl_add_u64 v[48:49], v[32:33], 0, v[48:49]
	global_store_dword v[48:49], v31, off
.LBB0_14:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v67
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_49
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_50
.LBB0_16:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_51
.LBB0_17:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execz .LBB0_19
.LBB0_18:
	v_or_b32_e32 v24, v30, v64
	v_mov_b32_e32 v25, 0
	v_lshl_add_u64 v[24:25], v[32:33], 0, v[24:25]
	global_store_dword v[24:25], v27, off
.LBB0_19:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v65
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_52
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_53
.LBB0_21:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_54
.LBB0_22:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execz .LBB0_24
.LBB0_23:
	v_or_b32_e32 v20, v30, v62
	v_mov_b32_e32 v21, 0
	v_lshl_add_u64 v[20:21], v[32:33], 0, v[20:21]
	global_store_dword v[20:21], v23, off
.LBB0_24:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v63
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_55
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_56
.LBB0_26:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_57
.LBB0_27:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execz .LBB0_29
.LBB0_28:
	v_or_b32_e32 v16, v30, v60
	v_mov_b32_e32 v17, 0
	v_lshl_add_u64 v[16:17], v[32:33], 0, v[16:17]
	global_store_dword v[16:17], v19, off
.LBB0_29:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v61
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_58
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_59
.LBB0_31:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_60
.LBB0_32:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execz .LBB0_34
.LBB0_33:
	v_or_b32_e32 v12, v30, v58
	v_mov_b32_e32 v13, 0
	v_lshl_add_u64 v[12:13], v[32:33], 0, v[12:13]
	global_store_dword v[12:13], v15, off
.LBB0_34:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v59
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_61
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_62
.LBB0_36:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_63
.LBB0_37:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execz .LBB0_39
.LBB0_38:
	v_or_b32_e32 v8, v30, v56
	v_mov_b32_e32 v9, 0
	v_lshl_add_u64 v[8:9], v[32:33], 0, v[8:9]
	global_store_dword v[8:9], v11, off
.LBB0_39:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v57
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_64
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_65
.LBB0_41:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execnz .LBB0_66
.LBB0_42:
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execz .LBB0_44
.LBB0_43:
	v_or_b32_e32 v4, v30, v54
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v7, off
.LBB0_44:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v55
	s_and_b64 s[10:11], vcc, s[6:7]
	s_and_saveexec_b64 s[8:9], s[10:11]
	s_cbranch_execnz .LBB0_67
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[0:1]
	s_and_saveexec_b64 s[0:1], s[8:9]
	s_cbranch_execnz .LBB0_68
.LBB0_46:
	s_or_b64 exec, exec, s[0:1]
	s_and_b64 s[2:3], s[6:7], s[2:3]
	s_and_saveexec_b64 s[0:1], s[2:3]
	s_cbranch_execnz .LBB0_69
.LBB0_47:
	s_or_b64 exec, exec, s[0:1]
	s_and_b64 s[0:1], s[6:7], s[4:5]
	s_and_saveexec_b64 s[2:3], s[0:1]
	s_cbranch_execnz .LBB0_70
.LBB0_48:
	s_endpgm
.LBB0_49:
	global_store_dword v[46:47], v24, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_16
.LBB0_50:
	v_or_b32_e32 v46, v28, v64
	v_mov_b32_e32 v47, 0
	v_lshl_add_u64 v[46:47], v[32:33], 0, v[46:47]
	global_store_dword v[46:47], v25, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_17
.LBB0_51:
	v_or_b32_e32 v24, v29, v64
	v_mov_b32_e32 v25, 0
	v_lshl_add_u64 v[24:25], v[32:33], 0, v[24:25]
	global_store_dword v[24:25], v26, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_18
	s_branch .LBB0_19
.LBB0_52:
	global_store_dword v[44:45], v20, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_21
.LBB0_53:
	v_or_b32_e32 v24, v28, v62
	v_mov_b32_e32 v25, 0
	v_lshl_add_u64 v[24:25], v[32:33], 0, v[24:25]
	global_store_dword v[24:25], v21, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_22
.LBB0_54:
	v_or_b32_e32 v20, v29, v62
	v_mov_b32_e32 v21, 0
	v_lshl_add_u64 v[20:21], v[32:33], 0, v[20:21]
	global_store_dword v[20:21], v22, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_23
	s_branch .LBB0_24
.LBB0_55:
	global_store_dword v[42:43], v16, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_26
.LBB0_56:
	v_or_b32_e32 v20, v28, v60
	v_mov_b32_e32 v21, 0
	v_lshl_add_u64 v[20:21], v[32:33], 0, v[20:21]
	global_store_dword v[20:21], v17, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_27
.LBB0_57:
	v_or_b32_e32 v16, v29, v60
	v_mov_b32_e32 v17, 0
	v_lshl_add_u64 v[16:17], v[32:33], 0, v[16:17]
	global_store_dword v[16:17], v18, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_28
	s_branch .LBB0_29
.LBB0_58:
	global_store_dword v[40:41], v12, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_31
.LBB0_59:
	v_or_b32_e32 v16, v28, v58
	v_mov_b32_e32 v17, 0
	v_lshl_add_u64 v[16:17], v[32:33], 0, v[16:17]
	global_store_dword v[16:17], v13, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_32
.LBB0_60:
	v_or_b32_e32 v12, v29, v58
	v_mov_b32_e32 v13, 0
	v_lshl_add_u64 v[12:13], v[32:33], 0, v[12:13]
	global_store_dword v[12:13], v14, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_33
	s_branch .LBB0_34
.LBB0_61:
	global_store_dword v[38:39], v8, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_36
.LBB0_62:
	v_or_b32_e32 v12, v28, v56
	v_mov_b32_e32 v13, 0
	v_lshl_add_u64 v[12:13], v[32:33], 0, v[12:13]
	global_store_dword v[12:13], v9, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_37
.LBB0_63:
	v_or_b32_e32 v8, v29, v56
	v_mov_b32_e32 v9, 0
	v_lshl_add_u64 v[8:9], v[32:33], 0, v[8:9]
	global_store_dword v[8:9], v10, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_38
	s_branch .LBB0_39
.LBB0_64:
	global_store_dword v[36:37], v4, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_41
.LBB0_65:
	v_or_b32_e32 v8, v28, v54
	v_mov_b32_e32 v9, 0
	v_lshl_add_u64 v[8:9], v[32:33], 0, v[8:9]
	global_store_dword v[8:9], v5, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_42
.LBB0_66:
	v_or_b32_e32 v4, v29, v54
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v6, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_43
	s_branch .LBB0_44
.LBB0_67:
	global_store_dword v[34:35], v0, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[0:1]
	s_and_saveexec_b64 s[0:1], s[8:9]
	s_cbranch_execz .LBB0_46
.LBB0_68:
	v_or_b32_e32 v4, v28, v53
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v1, off
	s_or_b64 exec, exec, s[0:1]
	s_and_b64 s[2:3], s[6:7], s[2:3]
	s_and_saveexec_b64 s[0:1], s[2:3]
	s_cbranch_execz .LBB0_47
.LBB0_69:
	v_or_b32_e32 v0, v29, v53
	v_mov_b32_e32 v1, 0
	v_lshl_add_u64 v[0:1], v[32:33], 0, v[0:1]
	global_store_dword v[0:1], v2, off
	s_or_b64 exec, exec, s[0:1]
	s_and_b64 s[0:1], s[6:7], s[4:5]
	s_and_saveexec_b64 s[2:3], s[0:1]
	s_cbranch_execz .LBB0_48
.LBB0_70:
	v_or_b32_e32 v0, v30, v53
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
		.amdhsa_next_free_vgpr 94
		.amdhsa_next_free_sgpr 20
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

	.set group_product.num_vgpr, 94
	.set group_product.num_agpr, 0
	.set group_product.numbered_sgpr, 20
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
    .sgpr_count:     26
    .sgpr_spill_count: 0
    .symbol:         group_product.kd
    .uses_dynamic_stack: false
    .vgpr_count:     94
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx950
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
