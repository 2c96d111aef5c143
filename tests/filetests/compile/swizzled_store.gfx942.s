	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl	swizzled_store
	.p2align	8
	.type	swizzled_store,@function
swizzled_store:
	s_load_dword s0, s[0:1], 0x4
	v_bfe_u32 v1, v0, 10, 10
	v_bfe_u32 v2, v0, 20, 10
	v_and_b32_e32 v0, 0x3ff, v0
	s_load_dwordx2 s[12:13], s[2:3], 0x0
	s_waitcnt lgkmcnt(0)
	s_lshr_b32 s1, s0, 16
	s_and_b32 s0, s0, 0xffff
	v_mad_u32_u24 v1, v2, s1, v1
	v_mad_u64_u32 v[0:1], s[0:1], v1, s0, v[0:1]
	v_lshrrev_b32_e32 v1, 2, v0
	v_bfe_u32 v2, v0, 3, 1
	v_and_b32_e32 v4, 12, v1
	v_and_b32_e32 v1, 4, v1
	v_or_b32_e32 v5, 2, v2
	v_or_b32_e32 v6, 4, v2
	v_or_b32_e32 v7, 6, v2
	v_or_b32_e32 v11, 1, v4
	v_lshlrev_b32_e32 v3, 1, v0
	v_or_b32_e32 v9, v2, v1
	v_lshlrev_b32_e32 v10, 7, v4
	v_or_b32_e32 v12, 2, v4
	v_or_b32_e32 v4, 3, v4
	v_or_b32_e32 v13, v5, v1
	v_xor_b32_e32 v14, v6, v1
	v_xor_b32_e32 v1, v7, v1
	v_and_b32_e32 v11, 5, v11
	v_and_b32_e32 v3, 14, v3
	v_lshlrev_b32_e32 v9, 4, v9
	v_and_b32_e32 v12, 6, v12
	v_and_b32_e32 v4, 7, v4
	v_lshlrev_b32_e32 v13, 4, v13
	v_lshlrev_b32_e32 v14, 4, v14
	v_lshlrev_b32_e32 v1, 4, v1
	v_xor_b32_e32 v18, v11, v2
	v_mov_b32_e32 v8, 0
	v_or_b32_e32 v15, 0x80, v10
	v_or_b32_e32 v16, 0x100, v10
	v_or_b32_e32 v17, 0x180, v10
	v_or3_b32 v9, v10, v9, v3
	v_or_b32_e32 v19, v12, v2
	v_xor_b32_e32 v2, v4, v2
	v_or3_b32 v13, v10, v13, v3
	v_xor_b32_e32 v20, v11, v5
	v_xor_b32_e32 v21, v12, v5
	v_xor_b32_e32 v5, v4, v5
	v_or3_b32 v14, v10, v14, v3
	v_xor_b32_e32 v22, v11, v6
	v_xor_b32_e32 v23, v12, v6
	v_xor_b32_e32 v6, v4, v6
	v_or3_b32 v1, v10, v1, v3
	v_xor_b32_e32 v10, v11, v7
	v_xor_b32_e32 v11, v12, v7
	v_xor_b32_e32 v4, v4, v7
	v_lshlrev_b32_e32 v7, 4, v18
	v_lshlrev_b32_e32 v12, 4, v19
	v_lshlrev_b32_e32 v2, 4, v2
	v_lshlrev_b32_e32 v18, 4, v20
	v_lshlrev_b32_e32 v19, 4, v21
	v_lshlrev_b32_e32 v5, 4, v5
	ds_write_b16 v13, v8
	v_lshlrev_b32_e32 v20, 4, v22
	v_lshlrev_b32_e32 v21, 4, v23
	v_lshlrev_b32_e32 v6, 4, v6
	v_lshlrev_b32_e32 v10, 4, v10
	v_lshlrev_b32_e32 v11, 4, v11
	v_lshlrev_b32_e32 v4, 4, v4
	ds_write_b16 v1, v8
	ds_write_b16 v9, v8 offset:2048
	ds_write_b16 v13, v8 offset:2048
	ds_write_b16 v14, v8 offset:2048
	ds_write_b16 v1, v8 offset:2048
	v_or3_b32 v1, v15, v7, v3
	ds_write_b16 v9, v8
	ds_write_b16 v14, v8
	v_or3_b32 v7, v16, v12, v3
	v_or3_b32 v2, v17, v2, v3
	v_or3_b32 v9, v15, v18, v3
	v_or3_b32 v12, v16, v19, v3
	v_or3_b32 v5, v17, v5, v3
	v_or3_b32 v13, v15, v20, v3
	v_or3_b32 v14, v16, v21, v3
	v_or3_b32 v6, v17, v6, v3
	v_or3_b32 v10, v15, v10, v3
	v_or3_b32 v11, v16, v11, v3
	v_or3_b32 v3, v17, v4, v3
	ds_write_b16 v1, v8
	ds_write_b16 v7, v8
	ds_write_b16 v2, v8
	ds_write_b16 v9, v8
	ds_write_b16 v12, v8
	ds_write_b16 v5, v8
	ds_write_b16 v13, v8
	ds_write_b16 v14, v8
	ds_write_b16 v6, v8
	ds_write_b16 v10, v8
	ds_write_b16 v11, v8
	ds_write_b16 v3, v8
	ds_write_b16 v1, v8 offset:2048
	ds_write_b16 v7, v8 offset:2048
	ds_write_b16 v2, v8 offset:2048
	ds_write_b16 v9, v8 offset:2048
	ds_write_b16 v12, v8 offset:2048
	ds_write_b16 v5, v8 offset:2048
	ds_write_b16 v13, v8 offset:2048
	ds_write_b16 v14, v8 offset:2048
	ds_write_b16 v6, v8 offset:2048
	ds_write_b16 v10, v8 offset:2048
	ds_write_b16 v11, v8 offset:2048
	ds_write_b16 v3, v8 offset:2048
	v_mov_b32_e32 v13, v8
	v_and_b32_e32 v12, 63, v0
	s_waitcnt lgkmcnt(0)
	s_load_dwordx4 s[8:11], s[12:13], 0x20
	s_load_dwordx2 s[18:19], s[12:13], 0x30
	s_load_dwordx8 s[0:7], s[12:13], 0x0
	s_waitcnt lgkmcnt(0)
	s_mul_i32 s9, s18, s9
	s_mul_hi_u32 s15, s18, s8
	s_mul_i32 s17, s19, s8
	s_mul_i32 s14, s18, s8
	s_mul_hi_u32 s8, s18, s2
	s_mul_i32 s20, s19, s2
	s_mul_i32 s16, s18, s2
	s_add_i32 s2, s15, s9
	s_mul_i32 s3, s18, s3
	s_add_i32 s15, s2, s17
	v_mov_b64_e32 v[10:11], s[18:19]
	s_add_i32 s3, s8, s3
	s_lshr_b64 s[18:19], s[14:15], 4
	s_add_i32 s17, s3, s20
	s_lshr_b32 s2, s15, 4
	s_mul_i32 s3, s18, s11
	s_mul_hi_u32 s8, s18, s10
	s_mul_i32 s2, s2, s10
	s_add_i32 s3, s8, s3
	s_mul_i32 s10, s18, s10
	s_add_i32 s11, s3, s2
	v_mov_b64_e32 v[0:1], s[0:1]
	v_mov_b64_e32 v[4:5], s[4:5]
	v_mov_b64_e32 v[6:7], s[6:7]
	v_mov_b64_e32 v[14:15], s[14:15]
	v_mov_b64_e32 v[16:17], s[18:19]
	v_cmp_gt_u64_e32 vcc, s[10:11], v[12:13]
	v_mov_b64_e32 v[18:19], s[10:11]
	v_mov_b64_e32 v[2:3], s[16:17]
	s_and_saveexec_b64 s[8:9], vcc
	s_cbranch_execz .LBB0_44
	v_cvt_f32_u32_e32 v0, s18
	v_cvt_f32_u32_e32 v1, s19
	s_load_dwordx2 s[2:3], s[12:13], 0x38
	v_mov_b64_e32 v[4:5], s[0:1]
	s_mov_b64 s[20:21], 0
	v_fmamk_f32 v0, v1, 0x4f800000, v0
	v_rcp_f32_e32 v0, v0
	v_cvt_f32_u32_e32 v1, s18
	s_waitcnt lgkmcnt(0)
	s_cmp_eq_u64 s[2:3], 0
	s_cselect_b64 s[22:23], -1, 0
	v_mul_f32_e32 v0, 0x5f7ffffc, v0
	v_rcp_iflag_f32_e32 v1, v1
	v_mul_f32_e32 v2, 0x2f800000, v0
	v_trunc_f32_e32 v2, v2
	v_fmamk_f32 v0, v2, 0xcf800000, v0
	v_cvt_u32_f32_e32 v16, v0
	v_mul_f32_e32 v0, 0x4f7ffffe, v1
	v_cvt_u32_f32_e32 v0, v0
	v_cvt_u32_f32_e32 v17, v2
	s_sub_i32 s0, 0, s18
	s_mov_b32 s15, 0
	v_mul_lo_u32 v1, s0, v0
	v_mul_hi_u32 v1, v0, v1
	v_add_u32_e32 v18, v0, v1
	v_mov_b64_e32 v[6:7], v[12:13]
	s_branch .LBB0_3
.LBB0_2:
	s_or_b64 exec, exec, s[0:1]
	v_lshl_add_u64 v[6:7], v[6:7], 0, 64
	v_cmp_le_u64_e32 vcc, s[10:11], v[6:7]
	s_or_b64 s[20:21], vcc, s[20:21]
	s_andn2_b64 exec, exec, s[20:21]
	s_cbranch_execz .LBB0_43
.LBB0_3:
	v_or_b32_e32 v9, s19, v7
	v_cmp_ne_u64_e32 vcc, 0, v[8:9]
	s_and_saveexec_b64 s[0:1], vcc
	s_xor_b64 s[2:3], exec, s[0:1]
	s_cbranch_execz .LBB0_5
	s_sub_u32 s0, 0, s18
	v_readfirstlane_b32 s24, v16
	v_readfirstlane_b32 s27, v17
	s_subb_u32 s1, 0, s19
	s_mul_hi_u32 s26, s0, s24
	s_mul_i32 s28, s0, s27
	s_mul_i32 s25, s1, s24
	s_add_i32 s26, s26, s28
	s_add_i32 s26, s26, s25
	s_mul_i32 s29, s0, s24
	s_mul_i32 s28, s24, s26
	s_mul_hi_u32 s30, s24, s29
	s_mul_hi_u32 s25, s24, s26
	s_add_u32 s28, s30, s28
	s_addc_u32 s25, 0, s25
	s_mul_hi_u32 s31, s27, s29
	s_mul_i32 s29, s27, s29
	s_add_u32 s28, s28, s29
	s_mul_hi_u32 s30, s27, s26
	s_addc_u32 s25, s25, s31
	s_addc_u32 s28, s30, 0
	s_mul_i32 s26, s27, s26
	s_add_u32 s25, s25, s26
	s_addc_u32 s26, 0, s28
	s_add_u32 s24, s24, s25
	s_addc_u32 s25, s27, s26
	s_mul_i32 s26, s0, s25
	s_mul_hi_u32 s27, s0, s24
	s_add_i32 s26, s27, s26
	s_mul_i32 s1, s1, s24
	s_add_i32 s26, s26, s1
	s_mul_i32 s0, s0, s24
	s_mul_hi_u32 s27, s25, s0
	s_mul_i32 s28, s25, s0
	s_mul_i32 s30, s24, s26
	s_mul_hi_u32 s0, s24, s0
	s_mul_hi_u32 s29, s24, s26
	s_add_u32 s0, s0, s30
	s_addc_u32 s29, 0, s29
	s_add_u32 s0, s0, s28
	s_mul_hi_u32 s1, s25, s26
	s_addc_u32 s0, s29, s27
	s_addc_u32 s1, s1, 0
	s_mul_i32 s26, s25, s26
	s_add_u32 s0, s0, s26
	s_addc_u32 s1, 0, s1
	s_add_u32 s24, s24, s0
	s_addc_u32 s25, s25, s1
	s_waitcnt lgkmcnt(0)
	v_mad_u64_u32 v[0:1], s[0:1], v6, s25, 0
	v_mul_hi_u32 v2, v6, s24
	v_mov_b32_e32 v3, v8
	v_lshl_add_u64 v[0:1], v[2:3], 0, v[0:1]
	v_mad_u64_u32 v[10:11], s[0:1], v7, s24, 0
	v_add_co_u32_e32 v0, vcc, v0, v10
	v_mad_u64_u32 v[2:3], s[0:1], v7, s25, 0
	s_nop 0
	v_addc_co_u32_e32 v0, vcc, v1, v11, vcc
	v_mov_b32_e32 v1, s15
	s_nop 0
	v_addc_co_u32_e32 v3, vcc, 0, v3, vcc
	v_lshl_add_u64 v[0:1], v[0:1], 0, v[2:3]
	v_mul_lo_u32 v9, s19, v0
	v_mul_lo_u32 v10, s18, v1
	v_mad_u64_u32 v[2:3], s[0:1], s18, v0, 0
	v_add3_u32 v9, v3, v10, v9
	v_sub_u32_e32 v3, v7, v9
	v_mov_b32_e32 v10, s19
	v_sub_co_u32_e32 v14, vcc, v6, v2
	s_nop 1
	v_subb_co_u32_e64 v2, s[0:1], v3, v10, vcc
	v_subrev_co_u32_e64 v3, s[0:1], s18, v14
	v_subb_co_u32_e32 v9, vcc, v7, v9, vcc
	s_nop 0
	v_subbrev_co_u32_e64 v2, s[0:1], 0, v2, s[0:1]
	v_cmp_le_u32_e64 s[0:1], s19, v2
	v_cmp_le_u32_e32 vcc, s19, v9
	s_nop 0
	v_cndmask_b32_e64 v10, 0, -1, s[0:1]
	v_cmp_le_u32_e64 s[0:1], s18, v3
	s_nop 1
	v_cndmask_b32_e64 v3, 0, -1, s[0:1]
	v_cmp_eq_u32_e64 s[0:1], s19, v2
	s_nop 1
	v_cndmask_b32_e64 v15, v10, v3, s[0:1]
	v_lshl_add_u64 v[2:3], v[0:1], 0, 2
	v_lshl_add_u64 v[10:11], v[0:1], 0, 1
	v_cmp_ne_u32_e64 s[0:1], 0, v15
	s_nop 1
	v_cndmask_b32_e64 v3, v11, v3, s[0:1]
	v_cndmask_b32_e64 v11, 0, -1, vcc
	v_cmp_le_u32_e32 vcc, s18, v14
	v_cndmask_b32_e64 v2, v10, v2, s[0:1]
	s_nop 0
	v_cndmask_b32_e64 v14, 0, -1, vcc
	v_cmp_eq_u32_e32 vcc, s19, v9
	s_nop 1
	v_cndmask_b32_e32 v9, v11, v14, vcc
	v_cmp_ne_u32_e32 vcc, 0, v9
	s_nop 1
	v_cndmask_b32_e32 v1, v1, v3, vcc
	v_cndmask_b32_e32 v0, v0, v2, vcc
.LBB0_5:
	s_andn2_saveexec_b64 s[0:1], s[2:3]
	s_cbranch_execz .LBB0_7
	s_waitcnt lgkmcnt(0)
	v_mul_hi_u32 v0, v6, v18
	v_mul_lo_u32 v1, v0, s18
	v_sub_u32_e32 v1, v6, v1
	v_subrev_u32_e32 v2, s18, v1
	v_cmp_le_u32_e32 vcc, s18, v1
	s_nop 1
	v_cndmask_b32_e32 v1, v1, v2, vcc
	v_add_u32_e32 v2, 1, v0
	v_cndmask_b32_e32 v0, v0, v2, vcc
	v_add_u32_e32 v2, 1, v0
	v_cmp_le_u32_e32 vcc, s18, v1
	v_mov_b32_e32 v1, v8
	s_nop 0
	v_cndmask_b32_e32 v0, v0, v2, vcc
.LBB0_7:
	s_or_b64 exec, exec, s[0:1]
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v9, v1, s18
	v_mul_lo_u32 v10, v0, s19
	v_mad_u64_u32 v[2:3], s[0:1], v0, s18, 0
	v_add3_u32 v3, v3, v10, v9
	v_sub_co_u32_e32 v2, vcc, v6, v2
	v_mul_lo_u32 v9, v0, s7
	s_nop 0
	v_subb_co_u32_e32 v3, vcc, v7, v3, vcc
	v_cmp_gt_u64_e32 vcc, s[4:5], v[0:1]
	v_lshlrev_b64 v[14:15], 4, v[2:3]
	v_mad_u64_u32 v[2:3], s[0:1], v0, s6, v[4:5]
	v_mul_lo_u32 v1, v1, s6
	v_add3_u32 v3, v1, v3, v9
	v_mad_u64_u32 v[0:1], s[2:3], v0, s14, v[14:15]
	v_lshrrev_b32_e32 v1, 3, v0
	v_and_b32_e32 v1, 0x70, v1
	v_cndmask_b32_e64 v1, v1, 0, s[22:23]
	v_xor_b32_e32 v0, v1, v0
	v_lshl_add_u64 v[10:11], v[2:3], 0, v[14:15]
	v_lshl_add_u64 v[20:21], v[14:15], 0, 16
	ds_read_b128 v[0:3], v0
	v_cmp_lt_i64_e64 s[0:1], -1, v[14:15]
	v_cmp_ge_i64_e64 s[2:3], s[16:17], v[20:21]
	s_and_b64 s[0:1], s[0:1], s[2:3]
	s_and_b64 s[0:1], vcc, s[0:1]
	s_xor_b64 s[0:1], s[0:1], -1
	s_and_saveexec_b64 s[2:3], s[0:1]
	s_xor_b64 s[2:3], exec, s[2:3]
	s_cbranch_execz .LBB0_41
	v_cmp_gt_u64_e64 s[0:1], s[16:17], v[14:15]
	s_and_b64 s[24:25], vcc, s[0:1]
	s_and_saveexec_b64 s[0:1], s[24:25]
	s_cbranch_execz .LBB0_10
	s_waitcnt lgkmcnt(0)
	global_store_byte v[10:11], v0, off
.LBB0_10:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v20, 1, v14
	v_mov_b32_e32 v21, v15
	v_cmp_gt_u64_e64 s[0:1], s[16:17], v[20:21]
	s_and_b64 s[24:25], vcc, s[0:1]
	s_and_saveexec_b64 s[0:1], s[24:25]
	s_cbranch_execz .LBB0_12
	s_waitcnt lgkmcnt(0)
	v_lshrrev_b32_e32 v9, 8, v0
	global_store_byte v[10:11], v9, off offset:1
.LBB0_12:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v20, 2, v14
	v_mov_b32_e32 v21, v15
	v_cmp_gt_u64_e64 s[0:1], s[16:17], v[20:21]
	s_and_b64 s[24:25], vcc, s[0:1]
	s_and_saveexec_b64 s[0:1], s[24:25]
	s_cbranch_execz .LBB0_14
	s_waitcnt lgkmcnt(0)
	global_store_byte_d16_hi v[10:11], v0, off offset:2
.LBB0_14:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v20, 3, v14
	v_mov_b32_e32 v21, v15
	v_cmp_gt_u64_e64 s[0:1], s[16:17], v[20:21]
	s_and_b64 s[24:25], vcc, s[0:1]
	s_and_saveexec_b64 s[0:1], s[24:25]
	s_cbranch_execz .LBB0_16
	s_waitcnt lgkmcnt(0)
	v_lshrrev_b32_e32 v0, 24, v0
	global_store_byte v[10:11], v0, off offset:3
.LBB0_16:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v20, 4, v14
	v_mov_b32_e32 v21, v15
	v_cmp_gt_u64_e64 s[0:1], s[16:17], v[20:21]
	s_and_b64 s[24:25], vcc, s[0:1]
	s_and_saveexec_b64 s[0:1], s[24:25]
	s_cbranch_execz .LBB0_18
	s_waitcnt lgkmcnt(0)
	global_store_byte v[10:11], v1, off offset:4
.LBB0_18:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v20, 5, v14
	v_mov_b32_e32 v21, v15
	v_cmp_gt_u64_e64 s[0:1], s[16:17], v[20:21]
	s_and_b64 s[24:25], vcc, s[0:1]
	s_and_saveexec_b64 s[0:1], s[24:25]
	s_cbranch_execz .LBB0_20
	s_waitcnt lgkmcnt(0)
	v_lshrrev_b32_e32 v0, 8, v1
	global_store_byte v[10:11], v0, off offset:5
.LBB0_20:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v20, 6, v14
	v_mov_b32_e32 v21, v15
	v_cmp_gt_u64_e64 s[0:1], s[16:17], v[20:21]
	s_and_b64 s[24:25], vcc, s[0:1]
	s_and_saveexec_b64 s[0:1], s[24:25]
	s_cbranch_execz .LBB0_22
	s_waitcnt lgkmcnt(0)
	global_store_byte_d16_hi v[10:11], v1, off offset:6
.LBB0_22:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v20, 7, v14
	v_mov_b32_e32 v21, v15
	v_cmp_gt_u64_e64 s[0:1], s[16:17], v[20:21]
	s_and_b64 s[24:25], vcc, s[0:1]
	s_and_saveexec_b64 s[0:1], s[24:25]
	s_cbranch_execz .LBB0_24
	s_waitcnt lgkmcnt(0)
	v_lshrrev_b32_e32 v0, 24, v1
	global_store_byte v[10:11], v0, off offset:7
.LBB0_24:
	s_or_b64 exec, exec, s[0:1]
	s_waitcnt lgkmcnt(0)
	v_or_b32_e32 v0, 8, v14
	v_mov_b32_e32 v1, v15
	v_cmp_gt_u64_e64 s[0:1], s[16:17], v[0:1]
	s_and_b64 s[24:25], vcc, s[0:1]
	s_and_saveexec_b64 s[0:1], s[24:25]
	s_cbranch_execz .LBB0_26
	global_store_byte v[10:11], v2, off offset:8
.LBB0_26:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v0, 9, v14
	v_mov_b32_e32 v1, v15
	v_cmp_gt_u64_e64 s[0:1], s[16:17], v[0:1]
	s_and_b64 s[24:25], vcc, s[0:1]
	s_and_saveexec_b64 s[0:1], s[24:25]
	s_cbranch_execz .LBB0_28
	v_lshrrev_b32_e32 v0, 8, v2
	global_store_byte v[10:11], v0, off offset:9
.LBB0_28:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v0, 10, v14
	v_mov_b32_e32 v1, v15
	v_cmp_gt_u64_e64 s[0:1], s[16:17], v[0:1]
	s_and_b64 s[24:25], vcc, s[0:1]
	s_and_saveexec_b64 s[0:1], s[24:25]
	s_cbranch_execz .LBB0_30
	global_store_byte_d16_hi v[10:11], v2, off offset:10
.LBB0_30:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v0, 11, v14
	v_mov_b32_e32 v1, v15
	v_cmp_gt_u64_e64 s[0:1], s[16:17], v[0:1]
	s_and_b64 s[24:25], vcc, s[0:1]
	s_and_saveexec_b64 s[0:1], s[24:25]
	s_cbranch_execz .LBB0_32
	v_lshrrev_b32_e32 v0, 24, v2
	global_store_byte v[10:11], v0, off offset:11
.LBB0_32:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v0, 12, v14
	v_mov_b32_e32 v1, v15
	v_cmp_gt_u64_e64 s[0:1], s[16:17], v[0:1]
	s_and_b64 s[24:25], vcc, s[0:1]
	s_and_saveexec_b64 s[0:1], s[24:25]
	s_cbranch_execz .LBB0_34
	global_store_byte v[10:11], v3, off offset:12
.LBB0_34:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v0, 13, v14
	v_mov_b32_e32 v1, v15
	v_cmp_gt_u64_e64 s[0:1], s[16:17], v[0:1]
	s_and_b64 s[24:25], vcc, s[0:1]
	s_and_saveexec_b64 s[0:1], s[24:25]
	s_cbranch_execz .LBB0_36
	v_lshrrev_b32_e32 v0, 8, v3
	global_store_byte v[10:11], v0, off offset:13
.LBB0_36:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v0, 14, v14
	v_mov_b32_e32 v1, v15
	v_cmp_gt_u64_e64 s[0:1], s[16:17], v[0:1]
	s_and_b64 s[24:25], vcc, s[0:1]
	s_and_saveexec_b64 s[0:1], s[24:25]
	s_cbranch_execz .LBB0_38
	global_store_byte_d16_hi v[10:11], v3, off offset:14
.LBB0_38:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v14, 15, v14
	v_cmp_gt_u64_e64 s[0:1], s[16:17], v[14:15]
	s_and_b64 s[0:1], vcc, s[0:1]
	s_and_saveexec_b64 s[24:25], s[0:1]
	s_xor_b64 s[0:1], exec, s[24:25]
	s_cbranch_execz .LBB0_40
	v_lshrrev_b32_e32 v0, 24, v3
	global_store_byte v[10:11], v0, off offset:15
.LBB0_40:
	s_or_b64 exec, exec, s[0:1]
.LBB0_41:
	s_andn2_saveexec_b64 s[0:1], s[2:3]
	s_cbranch_execz .LBB0_2
	s_waitcnt lgkmcnt(0)
	global_store_dwordx4 v[10:11], v[0:3], off
	s_branch .LBB0_2
.LBB0_43:
	s_or_b64 exec, exec, s[20:21]
	v_mov_b32_e32 v8, 0
	global_load_dwordx2 v[10:11], v8, s[12:13] offset:48
	global_load_dwordx4 v[16:19], v8, s[12:13] offset:32
	s_waitcnt lgkmcnt(0)
	global_load_dwordx4 v[0:3], v8, s[12:13]
	global_load_dwordx4 v[4:7], v8, s[12:13] offset:16
	s_waitcnt vmcnt(2)
	v_mul_lo_u32 v8, v10, v17
	v_mul_hi_u32 v9, v10, v16
	v_mul_lo_u32 v15, v11, v16
	v_mul_lo_u32 v14, v10, v16
	s_waitcnt vmcnt(1)
	v_mul_lo_u32 v3, v10, v3
	v_mul_hi_u32 v16, v10, v2
	v_add_u32_e32 v8, v9, v8
	v_mul_lo_u32 v17, v11, v2
	v_add_u32_e32 v3, v16, v3
	v_add_u32_e32 v15, v8, v15
	v_add_u32_e32 v3, v3, v17
	v_lshrrev_b64 v[16:17], 4, v[14:15]
	v_lshrrev_b32_e32 v8, 4, v15
	v_mul_lo_u32 v9, v16, v19
	v_mul_hi_u32 v15, v16, v18
	v_mul_lo_u32 v8, v8, v18
	v_add_u32_e32 v9, v15, v9
	v_mul_lo_u32 v18, v16, v18
	v_add_u32_e32 v19, v9, v8
	v_mul_lo_u32 v2, v10, v2
.LBB0_44:
	s_or_b64 exec, exec, s[8:9]
	v_cmp_gt_u64_e32 vcc, v[18:19], v[12:13]
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_87
	v_mov_b32_e32 v20, 0
	global_load_dwordx2 v[8:9], v20, s[12:13] offset:56
	v_lshlrev_b64 v[22:23], 6, v[10:11]
	v_cvt_f32_u32_e32 v10, v16
	v_cvt_f32_u32_e32 v11, v17
	v_cvt_f32_u32_e32 v15, v16
	v_sub_u32_e32 v21, 0, v16
	s_mov_b64 s[6:7], 0
	v_fmamk_f32 v10, v11, 0x4f800000, v10
	v_rcp_f32_e32 v10, v10
	v_rcp_iflag_f32_e32 v11, v15
	v_sub_co_u32_e32 v15, vcc, 0, v16
	v_mul_f32_e32 v10, 0x5f7ffffc, v10
	v_mul_f32_e32 v11, 0x4f7ffffe, v11
	v_mul_f32_e32 v24, 0x2f800000, v10
	v_cvt_u32_f32_e32 v11, v11
	v_trunc_f32_e32 v24, v24
	v_fmamk_f32 v10, v24, 0xcf800000, v10
	v_cvt_u32_f32_e32 v37, v24
	v_cvt_u32_f32_e32 v38, v10
	v_mul_lo_u32 v10, v21, v11
	v_subb_co_u32_e32 v36, vcc, 0, v17, vcc
	v_mul_hi_u32 v10, v11, v10
	v_add_u32_e32 v39, v11, v10
	v_mul_lo_u32 v21, v15, v37
	v_mul_lo_u32 v24, v36, v38
	v_mad_u64_u32 v[10:11], s[0:1], v15, v38, 0
	v_add3_u32 v11, v11, v21, v24
	v_mad_u64_u32 v[26:27], s[0:1], v38, v11, 0
	v_mad_u64_u32 v[28:29], s[0:1], v37, v11, 0
	v_mul_hi_u32 v24, v38, v10
	v_mad_u64_u32 v[30:31], s[2:3], v37, v10, 0
	s_waitcnt vmcnt(0)
	v_cmp_eq_u64_e64 s[0:1], 0, v[8:9]
	s_branch .LBB0_47
.LBB0_46:
	s_or_b64 exec, exec, s[2:3]
	v_lshl_add_u64 v[12:13], v[12:13], 0, 64
	v_cmp_ge_u64_e32 vcc, v[12:13], v[18:19]
	s_or_b64 s[6:7], vcc, s[6:7]
	s_andn2_b64 exec, exec, s[6:7]
	s_cbranch_execz .LBB0_87
.LBB0_47:
	v_or_b32_e32 v21, v13, v17
	v_cmp_ne_u64_e32 vcc, 0, v[20:21]
	s_and_saveexec_b64 s[2:3], vcc
	s_xor_b64 s[4:5], exec, s[2:3]
	s_cbranch_execz .LBB0_49
	v_mov_b32_e32 v25, v20
	s_waitcnt lgkmcnt(0)
	v_lshl_add_u64 v[8:9], v[24:25], 0, v[26:27]
	v_add_co_u32_e32 v8, vcc, v8, v30
	v_mov_b32_e32 v10, v28
	s_nop 0
	v_addc_co_u32_e32 v8, vcc, v9, v31, vcc
	v_mov_b32_e32 v9, v20
	s_nop 0
	v_addc_co_u32_e32 v11, vcc, 0, v29, vcc
	v_lshl_add_u64 v[8:9], v[8:9], 0, v[10:11]
	v_add_co_u32_e32 v21, vcc, v38, v8
	v_mul_lo_u32 v11, v36, v21
	s_nop 0
	v_addc_co_u32_e32 v25, vcc, v37, v9, vcc
	v_mul_lo_u32 v10, v15, v25
	v_mad_u64_u32 v[8:9], s[2:3], v15, v21, 0
	v_add3_u32 v9, v9, v10, v11
	v_mad_u64_u32 v[10:11], s[2:3], v25, v9, 0
	v_mad_u64_u32 v[32:33], s[2:3], v25, v8, 0
	v_mad_u64_u32 v[34:35], s[2:3], v21, v9, 0
	v_mul_hi_u32 v8, v21, v8
	v_mov_b32_e32 v9, v20
	v_lshl_add_u64 v[8:9], v[8:9], 0, v[34:35]
	v_add_co_u32_e32 v8, vcc, v8, v32
	s_nop 1
	v_addc_co_u32_e32 v8, vcc, v9, v33, vcc
	v_mov_b32_e32 v9, v20
	s_nop 0
	v_addc_co_u32_e32 v11, vcc, 0, v11, vcc
	v_lshl_add_u64 v[8:9], v[8:9], 0, v[10:11]
	v_add_co_u32_e32 v21, vcc, v21, v8
	v_mul_hi_u32 v10, v12, v21
	s_nop 0
	v_addc_co_u32_e32 v25, vcc, v25, v9, vcc
	v_mad_u64_u32 v[8:9], s[2:3], v12, v25, 0
	v_mov_b32_e32 v11, v20
	v_lshl_add_u64 v[8:9], v[10:11], 0, v[8:9]
	v_mad_u64_u32 v[32:33], s[2:3], v13, v21, 0
	v_add_co_u32_e32 v8, vcc, v8, v32
	v_mad_u64_u32 v[10:11], s[2:3], v13, v25, 0
	s_nop 0
	v_addc_co_u32_e32 v8, vcc, v9, v33, vcc
	v_mov_b32_e32 v9, v20
	s_nop 0
	v_addc_co_u32_e32 v11, vcc, 0, v11, vcc
	v_lshl_add_u64 v[8:9], v[8:9], 0, v[10:11]
	v_mul_lo_u32 v21, v17, v8
	v_mul_lo_u32 v25, v16, v9
	v_mad_u64_u32 v[10:11], s[2:3], v16, v8, 0
	v_add3_u32 v21, v11, v25, v21
	v_sub_u32_e32 v11, v13, v21
	v_sub_co_u32_e32 v25, vcc, v12, v10
	s_nop 1
	v_subb_co_u32_e64 v10, s[2:3], v11, v17, vcc
	v_sub_co_u32_e64 v11, s[2:3], v25, v16
	v_subb_co_u32_e32 v21, vcc, v13, v21, vcc
	s_nop 0
	v_subbrev_co_u32_e64 v10, s[2:3], 0, v10, s[2:3]
	v_cmp_ge_u32_e64 s[2:3], v10, v17
	v_cmp_ge_u32_e32 vcc, v21, v17
	s_nop 0
	v_cndmask_b32_e64 v32, 0, -1, s[2:3]
	v_cmp_ge_u32_e64 s[2:3], v11, v16
	s_nop 1
	v_cndmask_b32_e64 v11, 0, -1, s[2:3]
	v_cmp_eq_u32_e64 s[2:3], v10, v17
	s_nop 1
	v_cndmask_b32_e64 v34, v32, v11, s[2:3]
	v_lshl_add_u64 v[10:11], v[8:9], 0, 2
	v_lshl_add_u64 v[32:33], v[8:9], 0, 1
	v_cmp_ne_u32_e64 s[2:3], 0, v34
	s_nop 1
	v_cndmask_b32_e64 v11, v33, v11, s[2:3]
	v_cndmask_b32_e64 v33, 0, -1, vcc
	v_cmp_ge_u32_e32 vcc, v25, v16
	v_cndmask_b32_e64 v10, v32, v10, s[2:3]
	s_nop 0
	v_cndmask_b32_e64 v25, 0, -1, vcc
	v_cmp_eq_u32_e32 vcc, v21, v17
	s_nop 1
	v_cndmask_b32_e32 v21, v33, v25, vcc
	v_cmp_ne_u32_e32 vcc, 0, v21
	s_nop 1
	v_cndmask_b32_e32 v9, v9, v11, vcc
	v_cndmask_b32_e32 v8, v8, v10, vcc
.LBB0_49:
	s_andn2_saveexec_b64 s[2:3], s[4:5]
	s_cbranch_execz .LBB0_51
	s_waitcnt lgkmcnt(0)
	v_mul_hi_u32 v8, v12, v39
	v_mul_lo_u32 v9, v8, v16
	v_sub_u32_e32 v9, v12, v9
	v_sub_u32_e32 v10, v9, v16
	v_cmp_ge_u32_e32 vcc, v9, v16
	s_nop 1
	v_cndmask_b32_e32 v9, v9, v10, vcc
	v_add_u32_e32 v10, 1, v8
	v_cndmask_b32_e32 v8, v8, v10, vcc
	v_add_u32_e32 v10, 1, v8
	v_cmp_ge_u32_e32 vcc, v9, v16
	v_mov_b32_e32 v9, v20
	s_nop 0
	v_cndmask_b32_e32 v8, v8, v10, vcc
.LBB0_51:
	s_or_b64 exec, exec, s[2:3]
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v21, v9, v16
	v_mul_lo_u32 v25, v8, v17
	v_mad_u64_u32 v[10:11], s[2:3], v8, v16, 0
	v_add3_u32 v11, v11, v25, v21
	v_sub_co_u32_e32 v10, vcc, v12, v10
	v_mad_u64_u32 v[32:33], s[2:3], v8, v6, v[0:1]
	s_nop 0
	v_subb_co_u32_e32 v11, vcc, v13, v11, vcc
	v_lshlrev_b64 v[10:11], 4, v[10:11]
	v_cmp_lt_u64_e32 vcc, v[8:9], v[4:5]
	v_lshl_add_u64 v[34:35], v[10:11], 0, v[22:23]
	v_mul_lo_u32 v11, v8, v7
	v_mul_lo_u32 v9, v9, v6
	v_add3_u32 v33, v9, v33, v11
	v_mad_u64_u32 v[8:9], s[4:5], v8, v14, v[10:11]
	v_lshrrev_b32_e32 v9, 3, v8
	v_and_b32_e32 v9, 0x70, v9
	v_cndmask_b32_e64 v9, v9, 0, s[0:1]
	v_xor_b32_e32 v8, v9, v8
	v_lshl_add_u64 v[40:41], v[34:35], 0, 16
	ds_read_b128 v[8:11], v8 offset:2048
	v_cmp_lt_i64_e64 s[2:3], -1, v[34:35]
	v_cmp_le_i64_e64 s[4:5], v[40:41], v[2:3]
	s_and_b64 s[2:3], s[2:3], s[4:5]
	s_and_b64 s[2:3], vcc, s[2:3]
	v_lshl_add_u64 v[32:33], v[32:33], 0, v[34:35]
	s_xor_b64 s[2:3], s[2:3], -1
	s_and_saveexec_b64 s[4:5], s[2:3]
	s_xor_b64 s[4:5], exec, s[4:5]
	s_cbranch_execz .LBB0_85
	v_cmp_lt_u64_e64 s[2:3], v[34:35], v[2:3]
	s_and_b64 s[8:9], vcc, s[2:3]
	s_and_saveexec_b64 s[2:3], s[8:9]
	s_cbranch_execz .LBB0_54
	s_waitcnt lgkmcnt(0)
	global_store_byte v[32:33], v8, off
.LBB0_54:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v40, 1, v34
	v_mov_b32_e32 v41, v35
	v_cmp_lt_u64_e64 s[2:3], v[40:41], v[2:3]
	s_and_b64 s[8:9], vcc, s[2:3]
	s_and_saveexec_b64 s[2:3], s[8:9]
	s_cbranch_execz .LBB0_56
	s_waitcnt lgkmcnt(0)
	v_lshrrev_b32_e32 v21, 8, v8
	global_store_byte v[32:33], v21, off offset:1
.LBB0_56:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v40, 2, v34
	v_mov_b32_e32 v41, v35
	v_cmp_lt_u64_e64 s[2:3], v[40:41], v[2:3]
	s_and_b64 s[8:9], vcc, s[2:3]
	s_and_saveexec_b64 s[2:3], s[8:9]
	s_cbranch_execz .LBB0_58
	s_waitcnt lgkmcnt(0)
	global_store_byte_d16_hi v[32:33], v8, off offset:2
.LBB0_58:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v40, 3, v34
	v_mov_b32_e32 v41, v35
	v_cmp_lt_u64_e64 s[2:3], v[40:41], v[2:3]
	s_and_b64 s[8:9], vcc, s[2:3]
	s_and_saveexec_b64 s[2:3], s[8:9]
	s_cbranch_execz .LBB0_60
	s_waitcnt lgkmcnt(0)
	v_lshrrev_b32_e32 v8, 24, v8
	global_store_byte v[32:33], v8, off offset:3
.LBB0_60:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v40, 4, v34
	v_mov_b32_e32 v41, v35
	v_cmp_lt_u64_e64 s[2:3], v[40:41], v[2:3]
	s_and_b64 s[8:9], vcc, s[2:3]
	s_and_saveexec_b64 s[2:3], s[8:9]
	s_cbranch_execz .LBB0_62
	s_waitcnt lgkmcnt(0)
	global_store_byte v[32:33], v9, off offset:4
.LBB0_62:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v40, 5, v34
	v_mov_b32_e32 v41, v35
	v_cmp_lt_u64_e64 s[2:3], v[40:41], v[2:3]
	s_and_b64 s[8:9], vcc, s[2:3]
	s_and_saveexec_b64 s[2:3], s[8:9]
	s_cbranch_execz .LBB0_64
	s_waitcnt lgkmcnt(0)
	v_lshrrev_b32_e32 v8, 8, v9
	global_store_byte v[32:33], v8, off offset:5
.LBB0_64:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v40, 6, v34
	v_mov_b32_e32 v41, v35
	v_cmp_lt_u64_e64 s[2:3], v[40:41], v[2:3]
	s_and_b64 s[8:9], vcc, s[2:3]
	s_and_saveexec_b64 s[2:3], s[8:9]
	s_cbranch_execz .LBB0_66
	s_waitcnt lgkmcnt(0)
	global_store_byte_d16_hi v[32:33], v9, off offset:6
.LBB0_66:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v40, 7, v34
	v_mov_b32_e32 v41, v35
	v_cmp_lt_u64_e64 s[2:3], v[40:41], v[2:3]
	s_and_b64 s[8:9], vcc, s[2:3]
	s_and_saveexec_b64 s[2:3], s[8:9]
	s_cbranch_execz .LBB0_68
	s_waitcnt lgkmcnt(0)
	v_lshrrev_b32_e32 v8, 24, v9
	global_store_byte v[32:33], v8, off offset:7
.LBB0_68:
	s_or_b64 exec, exec, s[2:3]
	s_waitcnt lgkmcnt(0)
	v_or_b32_e32 v8, 8, v34
	v_mov_b32_e32 v9, v35
	v_cmp_lt_u64_e64 s[2:3], v[8:9], v[2:3]
	s_and_b64 s[8:9], vcc, s[2:3]
	s_and_saveexec_b64 s[2:3], s[8:9]
	s_cbranch_execz .LBB0_70
	global_store_byte v[32:33], v10, off offset:8
.LBB0_70:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v8, 9, v34
	v_mov_b32_e32 v9, v35
	v_cmp_lt_u64_e64 s[2:3], v[8:9], v[2:3]
	s_and_b64 s[8:9], vcc, s[2:3]
	s_and_saveexec_b64 s[2:3], s[8:9]
	s_cbranch_execz .LBB0_72
	v_lshrrev_b32_e32 v8, 8, v10
	global_store_byte v[32:33], v8, off offset:9
.LBB0_72:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v8, 10, v34
	v_mov_b32_e32 v9, v35
	v_cmp_lt_u64_e64 s[2:3], v[8:9], v[2:3]
	s_and_b64 s[8:9], vcc, s[2:3]
	s_and_saveexec_b64 s[2:3], s[8:9]
	s_cbranch_execz .LBB0_74
	global_store_byte_d16_hi v[32:33], v10, off offset:10
.LBB0_74:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v8, 11, v34
	v_mov_b32_e32 v9, v35
	v_cmp_lt_u64_e64 s[2:3], v[8:9], v[2:3]
	s_and_b64 s[8:9], vcc, s[2:3]
	s_and_saveexec_b64 s[2:3], s[8:9]
	s_cbranch_execz .LBB0_76
	v_lshrrev_b32_e32 v8, 24, v10
	global_store_byte v[32:33], v8, off offset:11
.LBB0_76:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v8, 12, v34
	v_mov_b32_e32 v9, v35
	v_cmp_lt_u64_e64 s[2:3], v[8:9], v[2:3]
	s_and_b64 s[8:9], vcc, s[2:3]
	s_and_saveexec_b64 s[2:3], s[8:9]
	s_cbranch_execz .LBB0_78
	global_store_byte v[32:33], v11, off offset:12
.LBB0_78:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v8, 13, v34
	v_mov_b32_e32 v9, v35
	v_cmp_lt_u64_e64 s[2:3], v[8:9], v[2:3]
	s_and_b64 s[8:9], vcc, s[2:3]
	s_and_saveexec_b64 s[2:3], s[8:9]
	s_cbranch_execz .LBB0_80
	v_lshrrev_b32_e32 v8, 8, v11
	global_store_byte v[32:33], v8, off offset:13
.LBB0_80:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v8, 14, v34
	v_mov_b32_e32 v9, v35
	v_cmp_lt_u64_e64 s[2:3], v[8:9], v[2:3]
	s_and_b64 s[8:9], vcc, s[2:3]
	s_and_saveexec_b64 s[2:3], s[8:9]
	s_cbranch_execz .LBB0_82
	global_store_byte_d16_hi v[32:33], v11, off offset:14
.LBB0_82:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v34, 15, v34
	v_cmp_lt_u64_e64 s[2:3], v[34:35], v[2:3]
	s_and_b64 s[2:3], vcc, s[2:3]
	s_and_saveexec_b64 s[8:9], s[2:3]
	s_xor_b64 s[2:3], exec, s[8:9]
	s_cbranch_execz .LBB0_84
	v_lshrrev_b32_e32 v8, 24, v11
	global_store_byte v[32:33], v8, off offset:15
.LBB0_84:
	s_or_b64 exec, exec, s[2:3]
.LBB0_85:
	s_andn2_saveexec_b64 s[2:3], s[4:5]
	s_cbranch_execz .LBB0_46
	s_waitcnt lgkmcnt(0)
	global_store_dwordx4 v[32:33], v[8:11], off
	s_branch .LBB0_46
.LBB0_87:
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel swizzled_store
		.amdhsa_group_segment_fixed_size 4096
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 24
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
		.amdhsa_accum_offset 44
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
	.size	swizzled_store, .Lfunc_end0-swizzled_store

	.set swizzled_store.num_vgpr, 42
	.set swizzled_store.num_agpr, 0
	.set swizzled_store.numbered_sgpr, 32
	.set swizzled_store.num_named_barrier, 0
	.set swizzled_store.private_seg_size, 0
	.set swizzled_store.uses_vcc, 1
	.set swizzled_store.uses_flat_scratch, 0
	.set swizzled_store.has_dyn_sized_stack, 0
	.set swizzled_store.has_recursion, 0
	.set swizzled_store.has_indirect_call, 0
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
        .name:           map
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .name:           map.len
        .offset:         8
        .size:           8
        .value_kind:     by_value
      - .address_space:  global
        .name:           bounds_record
        .offset:         16
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 4096
    .kernarg_segment_align: 8
    .kernarg_segment_size: 24
    .max_flat_workgroup_size: 32
    .name:           swizzled_store
    .private_segment_fixed_size: 0
    .sgpr_count:     38
    .sgpr_spill_count: 0
    .symbol:         swizzled_store.kd
    .uses_dynamic_stack: false
    .vgpr_count:     42
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
