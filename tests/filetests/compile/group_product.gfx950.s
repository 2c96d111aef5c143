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
	v_mov_b32_e32 v45, 0x2280
	v_mov_b32_e32 v43, 0x2080
	s_waitcnt lgkmcnt(0)
	s_lshr_b32 s0, s0, 16
	v_mad_u32_u24 v0, v0, s0, v1
	v_mad_u64_u32 v[32:33], s[0:1], v0, s26, v[16:17]
	v_and_b32_e32 v34, 15, v32
	v_lshrrev_b32_e32 v35, 2, v32
	v_and_or_b32 v1, v35, 48, v34
	v_bfe_u32 v36, v32, 4, 2
	v_lshlrev_b32_e32 v11, 7, v1
	v_lshlrev_b32_e32 v1, 1, v32
	v_lshlrev_b32_e32 v4, 10, v36
	v_and_b32_e32 v5, 30, v1
	s_movk_i32 s1, 0xb0
	v_bitop3_b32 v8, v5, s1, v4 bitop3:0x36
	s_movk_i32 s1, 0x190
	s_movk_i32 s0, 0x90
	v_bitop3_b32 v9, v5, s1, v4 bitop3:0x36
	s_movk_i32 s1, 0x2f0
	v_bitop3_b32 v1, v5, s0, v4 bitop3:0x36
	s_movk_i32 s0, 0x1b0
	v_bitop3_b32 v13, v5, s1, v4 bitop3:0x36
	s_movk_i32 s1, 0x3d0
	v_bitop3_b32 v2, v5, s0, v4 bitop3:0x36
	s_movk_i32 s0, 0x2d0
	v_bitop3_b32 v16, v5, s1, v4 bitop3:0x36
	s_movk_i32 s1, 0xd0
	v_lshrrev_b32_e32 v0, 4, v32
	v_and_b32_e32 v10, 7, v32
	v_bitop3_b32 v3, v5, s0, v4 bitop3:0x36
	s_movk_i32 s0, 0x3f0
	v_bitop3_b32 v17, v5, s1, v4 bitop3:0x36
	s_movk_i32 s1, 0x1f0
	v_bitop3_b32 v0, v0, v10, 3 bitop3:0x6c
	v_or_b32_e32 v12, v5, v4
	ds_read_u16 v7, v1 offset:8192
	ds_read_u16 v1, v2 offset:8192
	ds_read_u16 v2, v3 offset:8192
	v_bitop3_b32 v3, v5, s0, v4 bitop3:0x36
	v_bitop3_b32 v19, v5, s1, v4 bitop3:0x36
	s_movk_i32 s1, 0x290
	v_lshl_or_b32 v0, v0, 4, v11
	ds_read_u16 v6, v12 offset:8768
	ds_read_u16 v31, v12 offset:8800
	ds_read_u16 v39, v12 offset:8992
	s_mov_b32 s0, 0x5040100
	ds_read_u16 v14, v12 offset:9056
	ds_read_u16 v18, v12 offset:12288
	ds_read_u16 v33, v12 offset:12320
	ds_read_u16 v37, v12 offset:12352
	ds_read_u16 v15, v12 offset:9024
	v_bitop3_b32 v20, v5, s1, v4 bitop3:0x36
	ds_read_u16 v3, v3 offset:8192
	ds_read_u16 v24, v8 offset:8192
	ds_read_u16 v25, v9 offset:8192
	ds_read_u16 v13, v13 offset:8192
	ds_read_u16 v16, v16 offset:8192
	ds_read_u16 v17, v17 offset:8192
	ds_read_u16 v19, v19 offset:8192
	ds_read_u16 v28, v20 offset:8192
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v3, v3, v14, s0
	ds_read_u16 v8, v12 offset:8480
	ds_read_u16 v14, v12 offset:8736
	ds_read_b128 v[20:23], v0
	ds_read_u16 v0, v12 offset:8192
	ds_read_u16 v38, v12 offset:8512
	ds_read_u16 v29, v12 offset:8544
	ds_read_u16 v26, v12 offset:8448
	ds_read_u16 v27, v12 offset:8224
	ds_read_u16 v30, v12 offset:8256
	ds_read_u16 v42, v12 offset:21344
	v_perm_b32 v2, v2, v6, s0
	s_waitcnt lgkmcnt(9)
	v_perm_b32 v1, v1, v8, s0
	s_waitcnt lgkmcnt(6)
	v_perm_b32 v0, v7, v0, s0
	s_movk_i32 s1, 0x3b0
	v_mov_b32_e32 v44, 0x2180
	v_mfma_f32_16x16x32_bf16 v[6:9], v[20:23], v[0:3], 0
	v_perm_b32 v3, v16, v15, s0
	v_perm_b32 v2, v13, v31, s0
	s_waitcnt lgkmcnt(3)
	v_perm_b32 v1, v25, v26, s0
	s_waitcnt lgkmcnt(2)
	v_perm_b32 v0, v24, v27, s0
	ds_read_u16 v13, v12 offset:8704
	ds_read_u16 v16, v12 offset:8288
	v_mfma_f32_16x16x32_bf16 v[24:27], v[20:23], v[0:3], 0
	v_bitop3_b32 v0, v5, s1, v4 bitop3:0x36
	s_movk_i32 s1, 0xf0
	v_bitop3_b32 v1, v5, s1, v4 bitop3:0x36
	s_movk_i32 s1, 0x1d0
	v_bitop3_b32 v2, v5, s1, v4 bitop3:0x36
	s_movk_i32 s1, 0x2b0
	v_bitop3_b32 v3, v5, s1, v4 bitop3:0x36
	s_movk_i32 s1, 0x390
	v_bitop3_b32 v31, v5, s1, v4 bitop3:0x36
	s_movk_i32 s1, 0x50
	v_bitop3_b32 v46, v12, s1, v45 bitop3:0x36
	v_bitop3_b32 v40, v12, 16, v43 bitop3:0x36
	v_bitop3_b32 v41, v12, 48, v44 bitop3:0x36
	ds_read_u16 v0, v0 offset:8192
	ds_read_u16 v47, v1 offset:8192
	ds_read_u16 v48, v2 offset:8192
	ds_read_u16 v49, v3 offset:8192
	ds_read_u16 v50, v31 offset:8192
	ds_read_u16 v51, v40 offset:8192
	ds_read_u16 v52, v41 offset:8192
	ds_read_u16 v46, v46 offset:8192
	v_bitop3_b32 v10, v36, v10, 4 bitop3:0x36
	s_movk_i32 s3, 0x1090
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v3, v0, v39, s0
	v_perm_b32 v2, v28, v13, s0
	v_perm_b32 v1, v19, v29, s0
	v_perm_b32 v0, v17, v30, s0
	v_lshl_or_b32 v10, v10, 4, v11
	v_bitop3_b32 v11, v5, s3, v4 bitop3:0x36
	s_movk_i32 s3, 0x11b0
	v_mfma_f32_16x16x32_bf16 v[28:31], v[20:23], v[0:3], 0
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v2, v49, v14, s0
	v_bitop3_b32 v14, v5, s3, v4 bitop3:0x36
	s_movk_i32 s3, 0x12d0
	v_perm_b32 v0, v47, v16, s0
	v_bitop3_b32 v16, v5, s3, v4 bitop3:0x36
	s_movk_i32 s3, 0x13f0
	v_perm_b32 v1, v48, v38, s0
	ds_read_b128 v[38:41], v10
	ds_read_u16 v10, v11 offset:8192
	ds_read_u16 v11, v14 offset:8192
	ds_read_u16 v14, v16 offset:8192
	v_bitop3_b32 v16, v5, s3, v4 bitop3:0x36
	s_movk_i32 s3, 0x10b0
	v_bitop3_b32 v17, v5, s3, v4 bitop3:0x36
	s_movk_i32 s3, 0x1190
	ds_read_u16 v15, v12 offset:8960
	ds_read_u16 v13, v12 offset:16960
	v_bitop3_b32 v19, v5, s3, v4 bitop3:0x36
	s_movk_i32 s3, 0x12f0
	v_bitop3_b32 v53, v5, s3, v4 bitop3:0x36
	s_movk_i32 s3, 0x13d0
	v_bitop3_b32 v58, v5, s3, v4 bitop3:0x36
	s_movk_i32 s3, 0x10d0
	ds_read_u16 v54, v12 offset:16448
	ds_read_u16 v55, v12 offset:13152
	ds_read_u16 v56, v12 offset:16384
	ds_read_u16 v57, v12 offset:13120
	v_bitop3_b32 v59, v5, s3, v4 bitop3:0x36
	s_movk_i32 s3, 0x11f0
	v_bitop3_b32 v60, v5, s3, v4 bitop3:0x36
	s_movk_i32 s3, 0x1290
	s_waitcnt lgkmcnt(5)
	v_perm_b32 v3, v50, v15, s0
	ds_read_u16 v15, v12 offset:12864
	v_bitop3_b32 v61, v5, s3, v4 bitop3:0x36
	ds_read_u16 v16, v16 offset:8192
	ds_read_u16 v62, v17 offset:8192
	ds_read_u16 v63, v19 offset:8192
	ds_read_u16 v53, v53 offset:8192
	ds_read_u16 v58, v58 offset:8192
	ds_read_u16 v59, v59 offset:8192
	ds_read_u16 v60, v60 offset:8192
	ds_read_u16 v61, v61 offset:8192
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v17, v16, v55, s0
	ds_read_u16 v19, v12 offset:12576
	ds_read_u16 v55, v12 offset:12832
	v_perm_b32 v16, v14, v15, s0
	ds_read_u16 v64, v12 offset:12608
	ds_read_u16 v65, v12 offset:12640
	ds_read_u16 v66, v12 offset:12544
	v_perm_b32 v14, v10, v18, s0
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v15, v11, v19, s0
	s_movk_i32 s3, 0x13b0
	s_movk_i32 s2, 0x70
	v_mfma_f32_16x16x32_bf16 v[16:19], v[38:41], v[14:17], v[6:9]
	s_nop 2
	ds_read_u16 v6, v12 offset:12896
	ds_read_u16 v14, v12 offset:13088
	v_perm_b32 v9, v58, v57, s0
	s_waitcnt lgkmcnt(2)
	v_perm_b32 v7, v63, v66, s0
	v_mov_b32_e32 v63, 0x3280
	s_waitcnt lgkmcnt(1)
	v_perm_b32 v8, v53, v6, s0
	v_perm_b32 v6, v62, v33, s0
	ds_read_u16 v53, v12 offset:12800
	ds_read_u16 v58, v12 offset:12384
	v_mfma_f32_16x16x32_bf16 v[8:11], v[38:41], v[6:9], v[24:27]
	v_bitop3_b32 v6, v5, s3, v4 bitop3:0x36
	s_movk_i32 s3, 0x10f0
	v_bitop3_b32 v7, v5, s3, v4 bitop3:0x36
	s_movk_i32 s3, 0x11d0
	v_bitop3_b32 v24, v5, s3, v4 bitop3:0x36
	s_movk_i32 s3, 0x12b0
	v_bitop3_b32 v25, v5, s3, v4 bitop3:0x36
	s_movk_i32 s3, 0x1390
	v_mov_b32_e32 v33, 0x3080
	v_mov_b32_e32 v62, 0x3180
	v_mov_b32_e32 v47, 0x2380
	v_bitop3_b32 v4, v5, s3, v4 bitop3:0x36
	v_bitop3_b32 v5, v12, 16, v33 bitop3:0x36
	v_bitop3_b32 v26, v12, 48, v62 bitop3:0x36
	v_bitop3_b32 v27, v12, s1, v63 bitop3:0x36
	ds_read_u16 v6, v6 offset:8192
	ds_read_u16 v66, v7 offset:8192
	ds_read_u16 v24, v24 offset:8192
	ds_read_u16 v25, v25 offset:8192
	ds_read_u16 v67, v4 offset:8192
	ds_read_u16 v68, v5 offset:8192
	ds_read_u16 v69, v26 offset:8192
	ds_read_u16 v70, v27 offset:8192
	v_bitop3_b32 v48, v12, s2, v47 bitop3:0x36
	v_bitop3_b32 v49, v12, 48, v43 bitop3:0x36
	v_bitop3_b32 v50, v12, 16, v44 bitop3:0x36
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v7, v6, v14, s0
	v_perm_b32 v6, v61, v53, s0
	v_bitop3_b32 v14, v12, s2, v45 bitop3:0x36
	v_perm_b32 v5, v60, v65, s0
	v_perm_b32 v4, v59, v37, s0
	ds_read_u16 v15, v12 offset:16416
	ds_read_u16 v57, v12 offset:13056
	ds_read_u16 v26, v12 offset:17248
	ds_read_u16 v37, v12 offset:20480
	ds_read_u16 v59, v12 offset:20512
	ds_read_u16 v60, v12 offset:20544
	ds_read_u16 v53, v12 offset:17216
	v_mfma_f32_16x16x32_bf16 v[4:7], v[38:41], v[4:7], v[28:31]
	v_bitop3_b32 v27, v12, s1, v47 bitop3:0x36
	v_lshlrev_b32_e32 v32, 5, v32
	s_nop 0
	v_bitop3_b32 v28, v12, s1, v43 bitop3:0x36
	v_bitop3_b32 v29, v12, s2, v44 bitop3:0x36
	v_bitop3_b32 v30, v12, 16, v45 bitop3:0x36
	ds_read_u16 v31, v48 offset:8192
	ds_read_u16 v48, v49 offset:8192
	ds_read_u16 v49, v50 offset:8192
	ds_read_u16 v14, v14 offset:8192
	ds_read_u16 v50, v27 offset:8192
	ds_read_u16 v61, v28 offset:8192
	ds_read_u16 v65, v29 offset:8192
	ds_read_u16 v71, v30 offset:8192
	s_waitcnt lgkmcnt(7)
	v_perm_b32 v31, v31, v26, s0
	ds_read_u16 v26, v12 offset:16672
	ds_read_u16 v72, v12 offset:16928
	v_mfma_f32_16x16x32_bf16 v[0:3], v[20:23], v[0:3], 0
	v_perm_b32 v28, v51, v56, s0
	v_perm_b32 v27, v67, v57, s0
	s_waitcnt lgkmcnt(1)
	v_perm_b32 v29, v52, v26, s0
	v_perm_b32 v26, v25, v55, s0
	v_perm_b32 v25, v24, v64, s0
	v_perm_b32 v24, v66, v58, s0
	v_mov_b32_e32 v56, 0x3380
	v_bitop3_b32 v51, v12, s2, v56 bitop3:0x36
	v_mfma_f32_16x16x32_bf16 v[24:27], v[38:41], v[24:27], v[0:3]
	v_bitop3_b32 v55, v12, s1, v33 bitop3:0x36
	v_bitop3_b32 v57, v12, s2, v62 bitop3:0x36
	v_bitop3_b32 v58, v12, 16, v63 bitop3:0x36
	v_bitop3_b32 v0, v12, 48, v33 bitop3:0x36
	v_bitop3_b32 v1, v12, 16, v62 bitop3:0x36
	v_bitop3_b32 v2, v12, s2, v63 bitop3:0x36
	v_bitop3_b32 v3, v12, s1, v56 bitop3:0x36
	ds_read_u16 v51, v51 offset:8192
	ds_read_u16 v64, v0 offset:8192
	ds_read_u16 v66, v1 offset:8192
	ds_read_u16 v67, v2 offset:8192
	ds_read_u16 v74, v3 offset:8192
	ds_read_u16 v75, v55 offset:8192
	ds_read_u16 v57, v57 offset:8192
	ds_read_u16 v58, v58 offset:8192
	ds_read_u16 v55, v12 offset:21312
	ds_read_u16 v0, v12 offset:20768
	ds_read_u16 v76, v12 offset:21024
	ds_read_u16 v52, v12 offset:21056
	v_perm_b32 v30, v46, v13, s0
	s_waitcnt lgkmcnt(11)
	v_perm_b32 v3, v51, v42, s0
	s_waitcnt lgkmcnt(2)
	v_perm_b32 v1, v69, v0, s0
	v_perm_b32 v0, v68, v37, s0
	ds_read_u16 v37, v12 offset:16992
	ds_read_u16 v42, v12 offset:17184
	v_mfma_f32_16x16x32_bf16 v[28:31], v[20:23], v[28:31], 0
	s_waitcnt lgkmcnt(2)
	v_perm_b32 v2, v70, v52, s0
	ds_read_u16 v13, v12 offset:16704
	ds_read_u16 v46, v12 offset:16736
	ds_read_u16 v73, v12 offset:16640
	ds_read_u16 v70, v12 offset:20800
	ds_read_u16 v77, v12 offset:20832
	ds_read_u16 v51, v12 offset:20736
	v_mfma_f32_16x16x32_bf16 v[28:31], v[38:41], v[0:3], v[28:31]
	v_perm_b32 v3, v50, v53, s0
	ds_read_u16 v50, v12 offset:17152
	s_waitcnt lgkmcnt(8)
	v_perm_b32 v2, v14, v37, s0
	v_bitop3_b32 v14, v12, 48, v47 bitop3:0x36
	v_perm_b32 v0, v48, v15, s0
	v_bitop3_b32 v15, v12, s2, v43 bitop3:0x36
	v_bitop3_b32 v43, v12, s1, v44 bitop3:0x36
	v_bitop3_b32 v44, v12, 48, v45 bitop3:0x36
	v_bitop3_b32 v45, v12, 16, v47 bitop3:0x36
	ds_read_u16 v14, v14 offset:8192
	ds_read_u16 v47, v45 offset:8192
	ds_read_u16 v48, v44 offset:8192
	ds_read_u16 v15, v15 offset:8192
	ds_read_u16 v53, v43 offset:8192
	ds_read_u16 v37, v12 offset:16896
	ds_read_u16 v52, v12 offset:16480
	s_waitcnt lgkmcnt(11)
	v_perm_b32 v1, v49, v73, s0
	s_waitcnt lgkmcnt(6)
	v_perm_b32 v45, v14, v42, s0
	s_waitcnt lgkmcnt(5)
	v_perm_b32 v49, v47, v50, s0
	s_waitcnt lgkmcnt(2)
	v_perm_b32 v47, v53, v13, s0
	ds_read_u16 v13, v12 offset:21088
	ds_read_u16 v14, v12 offset:21280
	v_mfma_f32_16x16x32_bf16 v[0:3], v[20:23], v[0:3], 0
	s_waitcnt lgkmcnt(3)
	v_perm_b32 v44, v71, v37, s0
	v_perm_b32 v43, v65, v46, s0
	v_perm_b32 v42, v61, v54, s0
	v_perm_b32 v48, v48, v72, s0
	s_waitcnt lgkmcnt(2)
	v_perm_b32 v46, v15, v52, s0
	v_perm_b32 v53, v74, v55, s0
	s_waitcnt lgkmcnt(1)
	v_perm_b32 v52, v67, v13, s0
	v_perm_b32 v51, v66, v51, s0
	v_perm_b32 v50, v64, v59, s0
	v_mfma_f32_16x16x32_bf16 v[42:45], v[20:23], v[42:45], 0
	ds_read_u16 v37, v12 offset:21248
	ds_read_u16 v13, v12 offset:20992
	ds_read_u16 v61, v12 offset:20576
	v_mov_b32_e32 v54, s6
	v_mfma_f32_16x16x32_bf16 v[46:49], v[20:23], v[46:49], 0
	v_mov_b32_e32 v55, s7
	v_and_b32_e32 v66, 0xfffff800, v32
	v_mov_b32_e32 v67, 0
	v_mfma_f32_16x16x32_bf16 v[20:23], v[38:41], v[50:53], v[0:3]
	v_and_b32_e32 v65, 12, v35
	v_or_b32_e32 v64, 16, v34
	v_lshlrev_b32_e32 v35, 9, v65
	v_bitop3_b32 v0, v12, 48, v56 bitop3:0x36
	v_bitop3_b32 v1, v12, s2, v33 bitop3:0x36
	v_bitop3_b32 v2, v12, s1, v62 bitop3:0x36
	v_bitop3_b32 v3, v12, 48, v63 bitop3:0x36
	v_bitop3_b32 v12, v12, 16, v56 bitop3:0x36
	ds_read_u16 v0, v0 offset:8192
	ds_read_u16 v33, v1 offset:8192
	ds_read_u16 v50, v2 offset:8192
	ds_read_u16 v51, v3 offset:8192
	ds_read_u16 v52, v12 offset:8192
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v3, v0, v14, s0
	v_perm_b32 v2, v58, v13, s0
	v_perm_b32 v1, v57, v77, s0
	v_perm_b32 v0, v75, v60, s0
	v_lshlrev_b32_e32 v63, 2, v34
	v_or_b32_e32 v62, 32, v34
	v_mfma_f32_16x16x32_bf16 v[12:15], v[38:41], v[0:3], v[42:45]
	s_waitcnt lgkmcnt(0)
	v_perm_b32 v3, v52, v37, s0
	v_perm_b32 v2, v51, v76, s0
	v_perm_b32 v1, v50, v70, s0
	v_perm_b32 v0, v33, v61, s0
	v_lshl_add_u64 v[32:33], v[66:67], 2, v[54:55]
	v_lshl_or_b32 v66, v36, 11, v63
	v_lshlrev_b32_e32 v61, 2, v64
	v_mfma_f32_16x16x32_bf16 v[0:3], v[38:41], v[0:3], v[46:49]
	v_lshlrev_b32_e32 v59, 2, v62
	v_or_b32_e32 v60, 48, v34
	v_lshlrev_b32_e32 v57, 2, v60
	v_lshl_add_u64 v[48:49], v[32:33], 0, v[66:67]
	v_or_b32_e32 v66, v35, v61
	v_lshl_add_u64 v[46:47], v[32:33], 0, v[66:67]
	v_or_b32_e32 v66, v35, v59
	v_or_b32_e32 v58, 64, v34
	v_lshl_add_u64 v[44:45], v[32:33], 0, v[66:67]
	v_or_b32_e32 v66, v35, v57
	v_lshlrev_b32_e32 v55, 2, v58
	v_or_b32_e32 v56, 0x50, v34
	v_lshl_add_u64 v[42:43], v[32:33], 0, v[66:67]
	v_or_b32_e32 v66, v35, v55
	v_lshlrev_b32_e32 v53, 2, v56
	v_or_b32_e32 v54, 0x60, v34
	v_lshl_add_u64 v[40:41], v[32:33], 0, v[66:67]
	v_or_b32_e32 v66, v35, v53
	v_lshlrev_b32_e32 v51, 2, v54
	v_or_b32_e32 v52, 0x70, v34
	v_lshl_add_u64 v[38:39], v[32:33], 0, v[66:67]
	v_or_b32_e32 v66, v35, v51
	v_lshlrev_b32_e32 v50, 2, v52
	v_lshl_add_u64 v[36:37], v[32:33], 0, v[66:67]
	v_or_b32_e32 v66, v35, v50
	v_cmp_gt_u32_e64 s[6:7], s9, v34
	v_cmp_gt_u32_e32 vcc, s8, v65
	v_lshl_add_u64 v[34:35], v[32:33], 0, v[66:67]
	s_and_b64 s[2:3], s[6:7], vcc
	global_store_dword v[48:49], v16, off
	global_store_dword v[48:49], v17, off offset:512
	global_store_dword v[48:49], v18, off offset:1024
	global_store_dword v[48:49], v19, off offset:1536
	global_store_dword v[46:47], v8, off
	global_store_dword v[46:47], v9, off offset:512
	global_store_dword v[46:47], v10, off offset:1024
	global_store_dword v[46:47], v11, off offset:1536
	global_store_dword v[44:45], v4, off
	global_store_dword v[44:45], v5, off offset:512
	global_store_dword v[44:45], v6, off offset:1024
	global_store_dword v[44:45], v7, off offset:1536
	global_store_dword v[42:43], v24, off
	global_store_dword v[42:43], v25, off offset:512
	global_store_dword v[42:43], v26, off offset:1024
	global_store_dword v[42:43], v27, off offset:1536
	global_store_dword v[40:41], v28, off
	global_store_dword v[40:41], v29, off offset:512
	global_store_dword v[40:41], v30, off offset:1024
	global_store_dword v[40:41], v31, off offset:1536
	global_store_dword v[38:39], v20, off
	global_store_dword v[38:39], v21, off offset:512
	global_store_dword v[38:39], v22, off offset:1024
	global_store_dword v[38:39], v23, off offset:1536
	global_store_dword v[36:37], v12, off
	global_store_dword v[36:37], v13, off offset:512
	global_store_dword v[36:37], v14, off offset:1024
	global_store_dword v[36:37], v15, off offset:1536
	global_store_dword v[34:35], v0, off
	global_store_dword v[34:35], v1, off offset:512
	global_store_dword v[34:35], v2, off offset:1024
	global_store_dword v[34:35], v3, off offset:1536
	s_and_saveexec_b64 s[0:1], s[2:3]
	s_cbranch_execz .LBB0_20
	global_store_dword v[48:49], v16, off
.LBB0_20:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v48, 1, v65
	v_cmp_gt_u32_e64 s[0:1], s8, v48
	v_lshlrev_b32_e32 v16, 9, v48
	s_and_b64 s[4:5], s[6:7], s[0:1]
	s_and_saveexec_b64 s[2:3], s[4:5]
	s_cbranch_execz .LBB0_22
	v_or_b32_e32 v48, v16, v63
	v_mov_b32_e32 v49, 0
	v_lshl_add_u64 v[48:49], v[32:33], 0, v[48:49]
	global_store_dword v[48:49], v17, off
.LBB0_22:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v48, 2, v65
	v_cmp_gt_u32_e64 s[2:3], s8, v48
	v_lshlrev_b32_e32 v17, 9, v48
	s_and_b64 s[10:11], s[6:7], s[2:3]
	s_and_saveexec_b64 s[4:5], s[10:11]
	s_cbranch_execz .LBB0_24
	v_or_b32_e32 v48, v17, v63
	v_mov_b32_e32 v49, 0
	v_lshl_add_u64 v[48:49], v[32:33], 0, v[48:49]
	global_store_dword v[48:49], v18, off
.LBB0_24:
	s_or_b64 exec, exec, s[4:5]
	v_or_b32_e32 v48, 3, v65
	v_cmp_gt_u32_e64 s[4:5], s8, v48
	v_lshlrev_b32_e32 v18, 9, v48
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execz .LBB0_26
	v_or_b32_e32 v48, v18, v63
	v_mov_b32_e32 v49, 0
	v_lshl_add_u64 v[48:49], v[32:33], 0, v[48:49]
	global_store_dword v[48:49], v19, off
.LBB0_26:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v64
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
	v_or_b32_e32 v8, v18, v61
	v_mov_b32_e32 v9, 0
	v_lshl_add_u64 v[8:9], v[32:33], 0, v[8:9]
	global_store_dword v[8:9], v11, off
.LBB0_31:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v62
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
	v_or_b32_e32 v4, v18, v59
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v7, off
.LBB0_36:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v60
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
	v_or_b32_e32 v4, v18, v57
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v27, off
.LBB0_41:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v58
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
	v_or_b32_e32 v4, v18, v55
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v31, off
.LBB0_46:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v56
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
	v_or_b32_e32 v4, v18, v53
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v23, off
.LBB0_51:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v54
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
	v_or_b32_e32 v4, v18, v51
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v15, off
.LBB0_56:
	s_or_b64 exec, exec, s[6:7]
	v_cmp_gt_u32_e64 s[6:7], s9, v52
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
	global_store_dword v[46:47], v8, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_28
.LBB0_62:
	v_or_b32_e32 v46, v16, v61
	v_mov_b32_e32 v47, 0
	v_lshl_add_u64 v[46:47], v[32:33], 0, v[46:47]
	global_store_dword v[46:47], v9, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_29
.LBB0_63:
	v_or_b32_e32 v8, v17, v61
	v_mov_b32_e32 v9, 0
	v_lshl_add_u64 v[8:9], v[32:33], 0, v[8:9]
	global_store_dword v[8:9], v10, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_30
	s_branch .LBB0_31
.LBB0_64:
	global_store_dword v[44:45], v4, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_33
.LBB0_65:
	v_or_b32_e32 v8, v16, v59
	v_mov_b32_e32 v9, 0
	v_lshl_add_u64 v[8:9], v[32:33], 0, v[8:9]
	global_store_dword v[8:9], v5, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_34
.LBB0_66:
	v_or_b32_e32 v4, v17, v59
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v6, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_35
	s_branch .LBB0_36
.LBB0_67:
	global_store_dword v[42:43], v24, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_38
.LBB0_68:
	v_or_b32_e32 v4, v16, v57
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v25, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_39
.LBB0_69:
	v_or_b32_e32 v4, v17, v57
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v26, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_40
	s_branch .LBB0_41
.LBB0_70:
	global_store_dword v[40:41], v28, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_43
.LBB0_71:
	v_or_b32_e32 v4, v16, v55
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v29, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_44
.LBB0_72:
	v_or_b32_e32 v4, v17, v55
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v30, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_45
	s_branch .LBB0_46
.LBB0_73:
	global_store_dword v[38:39], v20, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_48
.LBB0_74:
	v_or_b32_e32 v4, v16, v53
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v21, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_49
.LBB0_75:
	v_or_b32_e32 v4, v17, v53
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v22, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[10:11], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[10:11]
	s_cbranch_execnz .LBB0_50
	s_branch .LBB0_51
.LBB0_76:
	global_store_dword v[36:37], v12, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_53
.LBB0_77:
	v_or_b32_e32 v4, v16, v51
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v13, off
	s_or_b64 exec, exec, s[10:11]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[10:11], s[12:13]
	s_cbranch_execz .LBB0_54
.LBB0_78:
	v_or_b32_e32 v4, v17, v51
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v14, off
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
	v_or_b32_e32 v4, v16, v50
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[32:33], 0, v[4:5]
	global_store_dword v[4:5], v1, off
	s_or_b64 exec, exec, s[0:1]
	s_and_b64 s[2:3], s[6:7], s[2:3]
	s_and_saveexec_b64 s[0:1], s[2:3]
	s_cbranch_execz .LBB0_59
.LBB0_81:
	v_or_b32_e32 v0, v17, v50
	v_mov_b32_e32 v1, 0
	v_lshl_add_u64 v[0:1], v[32:33], 0, v[0:1]
	global_store_dword v[0:1], v2, off
	s_or_b64 exec, exec, s[0:1]
	s_and_b64 s[0:1], s[6:7], s[4:5]
	s_and_saveexec_b64 s[2:3], s[0:1]
	s_cbranch_execz .LBB0_60
.LBB0_82:
	v_or_b32_e32 v0, v18, v50
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
		.amdhsa_next_free_vgpr 78
		.amdhsa_next_free_sgpr 31
		.amdhsa_accum_offset 80
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

	.set group_product.num_vgpr, 78
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
    .vgpr_count:     78
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx950
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
