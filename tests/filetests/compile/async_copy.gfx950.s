	.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
	.amdhsa_code_object_version 5
	.text
	.globl	async_copy
	.p2align	8
	.type	async_copy,@function
async_copy:
	v_and_b32_e32 v10, 0x3ff, v0
	v_cmp_eq_u32_e32 vcc, 0, v10
	s_and_saveexec_b64 s[4:5], vcc
	s_cbranch_execz .LBB0_7
	s_mov_b64 s[8:9], exec
	v_mbcnt_lo_u32_b32 v1, s8, 0
	v_mbcnt_hi_u32_b32 v1, s9, v1
	v_mov_b32_e32 v2, 0x200000
	v_mov_b32_e32 v3, 0x400
	v_mov_b32_e32 v4, 0
	v_cmp_eq_u32_e32 vcc, 0, v1
	ds_write_b64 v4, v[2:3] offset:8192
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execz .LBB0_3
	s_bcnt1_i32_b64 s8, s[8:9]
	s_mul_hi_i32 s9, s8, 0xffe02000
	s_mul_i32 s8, s8, 0xffe02000
	v_mov_b32_e32 v2, s8
	v_mov_b32_e32 v3, s9
	s_waitcnt lgkmcnt(0)
	ds_add_rtn_u64 v[2:3], v4, v[2:3] offset:8192
	s_waitcnt lgkmcnt(0)
.LBB0_3:
	s_or_b64 exec, exec, s[6:7]
	v_readfirstlane_b32 s8, v3
	v_readfirstlane_b32 s9, v2
	s_mov_b64 s[6:7], exec
	v_mov_b32_e32 v3, s8
	v_mov_b32_e32 v2, s9
	s_mov_b32 s8, 0xffe02000
	v_mad_i64_i32 v[2:3], s[8:9], v1, s8, v[2:3]
	s_mov_b32 s8, 0xffe02000
	s_mov_b32 s9, -1
	v_lshl_add_u64 v[2:3], v[2:3], 0, s[8:9]
	v_and_b32_e32 v5, 0x3ff, v3
	v_mov_b32_e32 v4, v2
	v_lshrrev_b64 v[2:3], 21, v[2:3]
	v_and_b32_e32 v2, 0xffe00000, v2
	v_and_b32_e32 v1, 0x3ff, v3
	v_cmp_eq_u64_e32 vcc, 0, v[4:5]
	s_mov_b64 s[8:9], 0
	s_nop 0
	v_cndmask_b32_e64 v1, 0, -|v1|, vcc
	v_cndmask_b32_e32 v2, 0, v2, vcc
.LBB0_4:
	s_ff1_i32_b64 s10, s[6:7]
	v_readlane_b32 s12, v2, s10
	v_readlane_b32 s11, v1, s10
	s_add_u32 s8, s8, s12
	s_addc_u32 s9, s9, s11
	s_lshl_b64 s[10:11], 1, s10
	s_andn2_b64 s[6:7], s[6:7], s[10:11]
	s_cbranch_scc1 .LBB0_4
	v_mbcnt_lo_u32_b32 v1, exec_lo, 0
	v_mbcnt_hi_u32_b32 v1, exec_hi, v1
	v_cmp_eq_u32_e32 vcc, 0, v1
	s_and_saveexec_b64 s[6:7], vcc
	s_xor_b64 s[6:7], exec, s[6:7]
	s_cbranch_execz .LBB0_7
	v_mov_b32_e32 v1, 0
	v_mov_b64_e32 v[2:3], s[8:9]
	s_waitcnt lgkmcnt(0)
	ds_add_u64 v1, v[2:3] offset:8192
.LBB0_7:
	s_or_b64 exec, exec, s[4:5]
	s_load_dwordx2 s[4:5], s[2:3], 0x0
	v_mov_b32_e32 v12, 0
	s_waitcnt lgkmcnt(0)
	s_load_dword s0, s[0:1], 0x4
	global_load_dwordx2 v[20:21], v12, s[4:5] offset:48
	global_load_dwordx4 v[14:17], v12, s[4:5] offset:32
	global_load_dwordx4 v[2:5], v12, s[4:5] offset:16
	global_load_dwordx4 v[6:9], v12, s[4:5]
	v_bfe_u32 v1, v0, 10, 6
	v_bfe_u32 v0, v0, 20, 10
	s_waitcnt lgkmcnt(0)
	s_lshr_b32 s1, s0, 16
	v_mad_u32_u24 v0, v0, s1, v1
	v_mad_u64_u32 v[0:1], s[0:1], v0, s0, v[10:11]
	v_and_b32_e32 v0, 63, v0
	s_waitcnt vmcnt(3)
	v_readfirstlane_b32 s1, v20
	s_waitcnt vmcnt(2)
	v_readfirstlane_b32 s6, v15
	v_readfirstlane_b32 s7, v14
	v_readfirstlane_b32 s0, v21
	s_mul_i32 s6, s1, s6
	s_mul_hi_u32 s8, s1, s7
	s_mul_i32 s0, s0, s7
	s_mul_i32 s40, s1, s7
	s_add_i32 s1, s8, s6
	s_add_i32 s41, s1, s0
	s_lshr_b64 s[42:43], s[40:41], 4
	s_lshr_b32 s0, s41, 4
	v_mul_lo_u32 v1, s42, v17
	v_mul_hi_u32 v10, s42, v16
	v_mul_lo_u32 v11, s0, v16
	v_add_u32_e32 v1, v10, v1
	v_mul_lo_u32 v14, s42, v16
	v_add_u32_e32 v15, v1, v11
	v_mov_b32_e32 v1, v12
	v_cmp_gt_u64_e64 s[0:1], v[14:15], v[0:1]
	s_and_saveexec_b64 s[44:45], s[0:1]
	s_cbranch_execz .LBB0_18
	global_load_dwordx2 v[10:11], v12, s[4:5] offset:56
	s_waitcnt vmcnt(1)
	v_mul_hi_u32 v13, v20, v8
	v_mul_lo_u32 v17, v21, v8
	v_mul_lo_u32 v16, v20, v8
	v_cvt_f32_u32_e32 v8, s42
	v_cvt_f32_u32_e32 v18, s43
	v_cvt_f32_u32_e32 v19, s42
	s_load_dwordx2 s[4:5], s[2:3], 0x8
	v_mul_lo_u32 v9, v20, v9
	v_add_u32_e32 v9, v13, v9
	v_fmamk_f32 v8, v18, 0x4f800000, v8
	v_add_u32_e32 v17, v9, v17
	v_rcp_iflag_f32_e32 v9, v19
	v_rcp_f32_e32 v8, v8
	s_waitcnt lgkmcnt(0)
	s_ashr_i32 s7, s4, 31
	v_mul_hi_u32 v13, v20, s4
	v_mul_lo_u32 v18, v20, s4
	v_mul_lo_u32 v20, v20, s7
	v_mul_lo_u32 v19, v21, s4
	v_add_u32_e32 v13, v13, v20
	v_mul_f32_e32 v9, 0x4f7ffffe, v9
	v_mul_f32_e32 v8, 0x5f7ffffc, v8
	v_add_u32_e32 v19, v13, v19
	v_cvt_u32_f32_e32 v9, v9
	v_mul_f32_e32 v13, 0x2f800000, v8
	v_trunc_f32_e32 v13, v13
	v_fmamk_f32 v8, v13, 0xcf800000, v8
	s_sub_i32 s6, 0, s42
	v_cvt_u32_f32_e32 v28, v13
	v_cvt_u32_f32_e32 v29, v8
	v_mul_lo_u32 v8, s6, v9
	v_mul_hi_u32 v8, v9, v8
	s_mov_b64 s[46:47], 0
	s_mov_b32 s33, 0
	s_movk_i32 s41, 0xff
	s_ashr_i32 s49, s5, 31
	s_mov_b32 s48, s5
	v_add_u32_e32 v30, v9, v8
	v_mov_b64_e32 v[20:21], v[0:1]
	s_waitcnt vmcnt(0)
	v_cmp_eq_u64_e64 s[4:5], 0, v[10:11]
	s_branch .LBB0_10
.LBB0_9:
	s_or_b64 exec, exec, s[6:7]
	v_mad_u64_u32 v[22:23], s[6:7], v22, s40, v[24:25]
	v_lshrrev_b32_e32 v13, 3, v22
	v_and_b32_e32 v13, 0x70, v13
	v_lshl_add_u64 v[20:21], v[20:21], 0, 64
	v_cndmask_b32_e64 v13, v13, 0, s[4:5]
	v_cmp_ge_u64_e32 vcc, v[20:21], v[14:15]
	v_xor_b32_e32 v13, v13, v22
	s_or_b64 s[46:47], vcc, s[46:47]
	s_waitcnt vmcnt(0)
	ds_write_b128 v13, v[8:11]
	s_andn2_b64 exec, exec, s[46:47]
	s_cbranch_execz .LBB0_18
.LBB0_10:
	v_or_b32_e32 v13, s43, v21
	v_cmp_ne_u64_e32 vcc, 0, v[12:13]
	s_and_saveexec_b64 s[6:7], vcc
	s_xor_b64 s[8:9], exec, s[6:7]
	s_cbranch_execz .LBB0_12
	s_sub_u32 s6, 0, s42
	v_readfirstlane_b32 s10, v29
	v_readfirstlane_b32 s13, v28
	s_subb_u32 s7, 0, s43
	s_mul_hi_u32 s12, s6, s10
	s_mul_i32 s14, s6, s13
	s_mul_i32 s11, s7, s10
	s_add_i32 s12, s12, s14
	s_add_i32 s12, s12, s11
	s_mul_i32 s15, s6, s10
	s_mul_i32 s14, s10, s12
	s_mul_hi_u32 s16, s10, s15
	s_mul_hi_u32 s11, s10, s12
	s_add_u32 s14, s16, s14
	s_addc_u32 s11, 0, s11
	s_mul_hi_u32 s17, s13, s15
	s_mul_i32 s15, s13, s15
	s_add_u32 s14, s14, s15
	s_mul_hi_u32 s16, s13, s12
	s_addc_u32 s11, s11, s17
	s_addc_u32 s14, s16, 0
	s_mul_i32 s12, s13, s12
	s_add_u32 s11, s11, s12
	s_addc_u32 s12, 0, s14
	s_add_u32 s10, s10, s11
	s_addc_u32 s11, s13, s12
	s_mul_i32 s12, s6, s11
	s_mul_hi_u32 s13, s6, s10
	s_add_i32 s12, s13, s12
	s_mul_i32 s7, s7, s10
	s_add_i32 s12, s12, s7
	s_mul_i32 s6, s6, s10
	s_mul_hi_u32 s13, s11, s6
	s_mul_i32 s14, s11, s6
	s_mul_i32 s16, s10, s12
	s_mul_hi_u32 s6, s10, s6
	s_mul_hi_u32 s15, s10, s12
	s_add_u32 s6, s6, s16
	s_addc_u32 s15, 0, s15
	s_add_u32 s6, s6, s14
	s_mul_hi_u32 s7, s11, s12
	s_addc_u32 s6, s15, s13
	s_addc_u32 s7, s7, 0
	s_mul_i32 s12, s11, s12
	s_add_u32 s6, s6, s12
	s_addc_u32 s7, 0, s7
	s_add_u32 s10, s10, s6
	s_addc_u32 s11, s11, s7
	v_mad_u64_u32 v[8:9], s[6:7], v20, s11, 0
	v_mul_hi_u32 v10, v20, s10
	v_mov_b32_e32 v11, v12
	v_lshl_add_u64 v[8:9], v[10:11], 0, v[8:9]
	v_mad_u64_u32 v[22:23], s[6:7], v21, s10, 0
	v_add_co_u32_e32 v8, vcc, v8, v22
	v_mad_u64_u32 v[10:11], s[6:7], v21, s11, 0
	s_nop 0
	v_addc_co_u32_e32 v8, vcc, v9, v23, vcc
	v_mov_b32_e32 v9, s33
	s_nop 0
	v_addc_co_u32_e32 v11, vcc, 0, v11, vcc
	v_lshl_add_u64 v[8:9], v[8:9], 0, v[10:11]
	v_mul_lo_u32 v13, s43, v8
	v_mul_lo_u32 v22, s42, v9
	v_mad_u64_u32 v[10:11], s[6:7], s42, v8, 0
	v_add3_u32 v13, v11, v22, v13
	v_sub_u32_e32 v11, v21, v13
	v_mov_b32_e32 v22, s43
	v_sub_co_u32_e32 v24, vcc, v20, v10
	s_nop 1
	v_subb_co_u32_e64 v10, s[6:7], v11, v22, vcc
	v_subrev_co_u32_e64 v11, s[6:7], s42, v24
	v_subb_co_u32_e32 v13, vcc, v21, v13, vcc
	s_nop 0
	v_subbrev_co_u32_e64 v10, s[6:7], 0, v10, s[6:7]
	v_cmp_le_u32_e64 s[6:7], s43, v10
	v_cmp_le_u32_e32 vcc, s43, v13
	s_nop 0
	v_cndmask_b32_e64 v22, 0, -1, s[6:7]
	v_cmp_le_u32_e64 s[6:7], s42, v11
	s_nop 1
	v_cndmask_b32_e64 v11, 0, -1, s[6:7]
	v_cmp_eq_u32_e64 s[6:7], s43, v10
	s_nop 1
	v_cndmask_b32_e64 v25, v22, v11, s[6:7]
	v_lshl_add_u64 v[10:11], v[8:9], 0, 2
	v_lshl_add_u64 v[22:23], v[8:9], 0, 1
	v_cmp_ne_u32_e64 s[6:7], 0, v25
	s_nop 1
	v_cndmask_b32_e64 v11, v23, v11, s[6:7]
	v_cndmask_b32_e64 v23, 0, -1, vcc
	v_cmp_le_u32_e32 vcc, s42, v24
	s_nop 1
	v_cndmask_b32_e64 v24, 0, -1, vcc
	v_cmp_eq_u32_e32 vcc, s43, v13
	s_nop 1
	v_cndmask_b32_e32 v13, v23, v24, vcc
	v_cmp_ne_u32_e32 vcc, 0, v13
	s_nop 1
	v_cndmask_b32_e32 v23, v9, v11, vcc
	v_cndmask_b32_e64 v9, v22, v10, s[6:7]
	v_cndmask_b32_e32 v22, v8, v9, vcc
.LBB0_12:
	s_andn2_saveexec_b64 s[6:7], s[8:9]
	s_cbranch_execz .LBB0_14
	v_mul_hi_u32 v8, v20, v30
	v_mul_lo_u32 v9, v8, s42
	v_sub_u32_e32 v9, v20, v9
	v_subrev_u32_e32 v10, s42, v9
	v_cmp_le_u32_e32 vcc, s42, v9
	v_mov_b32_e32 v23, v12
	s_nop 0
	v_cndmask_b32_e32 v9, v9, v10, vcc
	v_add_u32_e32 v10, 1, v8
	v_cndmask_b32_e32 v8, v8, v10, vcc
	v_add_u32_e32 v10, 1, v8
	v_cmp_le_u32_e32 vcc, s42, v9
	s_nop 1
	v_cndmask_b32_e32 v22, v8, v10, vcc
.LBB0_14:
	s_or_b64 exec, exec, s[6:7]
	v_mul_lo_u32 v10, v23, s42
	v_mul_lo_u32 v11, v22, s43
	v_mad_u64_u32 v[8:9], s[6:7], v22, s42, 0
	v_add3_u32 v9, v9, v11, v10
	v_sub_co_u32_e32 v8, vcc, v20, v8
	v_lshl_add_u64 v[10:11], v[22:23], 0, s[48:49]
	s_nop 0
	v_subb_co_u32_e32 v9, vcc, v21, v9, vcc
	v_cmp_lt_u64_e32 vcc, v[10:11], v[2:3]
	v_lshlrev_b64 v[24:25], 4, v[8:9]
	v_mul_lo_u32 v13, v10, v5
	v_mul_lo_u32 v23, v11, v4
	v_mad_u64_u32 v[10:11], s[6:7], v10, v4, v[6:7]
	v_lshl_add_u64 v[8:9], v[24:25], 0, v[18:19]
	v_add3_u32 v11, v23, v11, v13
	v_lshl_add_u64 v[26:27], v[10:11], 0, v[8:9]
	v_lshl_add_u64 v[10:11], v[8:9], 0, 16
	v_cmp_lt_i64_e64 s[6:7], -1, v[8:9]
	v_cmp_le_i64_e64 s[8:9], v[10:11], v[16:17]
	s_and_b64 s[6:7], s[6:7], s[8:9]
	s_and_b64 s[6:7], vcc, s[6:7]
	s_xor_b64 s[6:7], s[6:7], -1
	s_and_saveexec_b64 s[8:9], s[6:7]
	s_xor_b64 s[50:51], exec, s[8:9]
	s_cbranch_execz .LBB0_16
	v_cmp_lt_u64_e64 s[6:7], v[8:9], v[16:17]
	s_and_b64 s[6:7], vcc, s[6:7]
	s_nop 0
	v_cndmask_b32_e64 v11, v7, v27, s[6:7]
	v_cndmask_b32_e64 v10, v6, v26, s[6:7]
	global_load_ubyte v13, v[10:11], off
	v_lshl_add_u64 v[10:11], v[8:9], 0, 1
	v_cmp_lt_u64_e64 s[8:9], v[10:11], v[16:17]
	v_lshl_add_u64 v[10:11], v[26:27], 0, 1
	s_and_b64 s[8:9], vcc, s[8:9]
	v_cndmask_b32_e64 v11, v7, v11, s[8:9]
	v_cndmask_b32_e64 v10, v6, v10, s[8:9]
	global_load_ubyte v23, v[10:11], off
	v_lshl_add_u64 v[10:11], v[8:9], 0, 2
	v_cmp_lt_u64_e64 s[10:11], v[10:11], v[16:17]
	v_lshl_add_u64 v[10:11], v[26:27], 0, 2
	s_and_b64 s[10:11], vcc, s[10:11]
	v_cndmask_b32_e64 v11, v7, v11, s[10:11]
	v_cndmask_b32_e64 v10, v6, v10, s[10:11]
	global_load_ubyte v25, v[10:11], off
	v_lshl_add_u64 v[10:11], v[8:9], 0, 3
	v_cmp_lt_u64_e64 s[12:13], v[10:11], v[16:17]
	v_lshl_add_u64 v[10:11], v[26:27], 0, 3
	s_and_b64 s[12:13], vcc, s[12:13]
	v_cndmask_b32_e64 v11, v7, v11, s[12:13]
	v_cndmask_b32_e64 v10, v6, v10, s[12:13]
	global_load_ubyte v31, v[10:11], off
	v_lshl_add_u64 v[10:11], v[8:9], 0, 4
	v_cmp_lt_u64_e64 s[14:15], v[10:11], v[16:17]
	v_lshl_add_u64 v[10:11], v[26:27], 0, 4
	s_and_b64 s[14:15], vcc, s[14:15]
	v_cndmask_b32_e64 v11, v7, v11, s[14:15]
	v_cndmask_b32_e64 v10, v6, v10, s[14:15]
	global_load_ubyte v32, v[10:11], off
	v_lshl_add_u64 v[10:11], v[8:9], 0, 5
	v_cmp_lt_u64_e64 s[16:17], v[10:11], v[16:17]
	v_lshl_add_u64 v[10:11], v[26:27], 0, 5
	s_and_b64 s[16:17], vcc, s[16:17]
	v_cndmask_b32_e64 v11, v7, v11, s[16:17]
	v_cndmask_b32_e64 v10, v6, v10, s[16:17]
	global_load_ubyte v33, v[10:11], off
	v_lshl_add_u64 v[10:11], v[8:9], 0, 6
	v_cmp_lt_u64_e64 s[18:19], v[10:11], v[16:17]
	v_lshl_add_u64 v[10:11], v[26:27], 0, 6
	s_and_b64 s[18:19], vcc, s[18:19]
	v_cndmask_b32_e64 v11, v7, v11, s[18:19]
	v_cndmask_b32_e64 v10, v6, v10, s[18:19]
	global_load_ubyte v34, v[10:11], off
	v_lshl_add_u64 v[10:11], v[8:9], 0, 7
	v_cmp_lt_u64_e64 s[20:21], v[10:11], v[16:17]
	v_lshl_add_u64 v[10:11], v[26:27], 0, 7
	s_and_b64 s[20:21], vcc, s[20:21]
	v_cndmask_b32_e64 v11, v7, v11, s[20:21]
	v_cndmask_b32_e64 v10, v6, v10, s[20:21]
	global_load_ubyte v35, v[10:11], off
	v_lshl_add_u64 v[10:11], v[8:9], 0, 8
	v_cmp_lt_u64_e64 s[22:23], v[10:11], v[16:17]
	v_lshl_add_u64 v[10:11], v[26:27], 0, 8
	s_and_b64 s[22:23], vcc, s[22:23]
	v_cndmask_b32_e64 v11, v7, v11, s[22:23]
	v_cndmask_b32_e64 v10, v6, v10, s[22:23]
	global_load_ubyte v36, v[10:11], off
	v_lshl_add_u64 v[10:11], v[8:9], 0, 9
	v_cmp_lt_u64_e64 s[24:25], v[10:11], v[16:17]
	v_lshl_add_u64 v[10:11], v[26:27], 0, 9
	s_and_b64 s[24:25], vcc, s[24:25]
	v_cndmask_b32_e64 v11, v7, v11, s[24:25]
	v_cndmask_b32_e64 v10, v6, v10, s[24:25]
	global_load_ubyte v37, v[10:11], off
	v_lshl_add_u64 v[10:11], v[8:9], 0, 10
	v_cmp_lt_u64_e64 s[26:27], v[10:11], v[16:17]
	v_lshl_add_u64 v[10:11], v[26:27], 0, 10
	s_and_b64 s[26:27], vcc, s[26:27]
	v_cndmask_b32_e64 v11, v7, v11, s[26:27]
	v_cndmask_b32_e64 v10, v6, v10, s[26:27]
	global_load_ubyte v38, v[10:11], off
	v_lshl_add_u64 v[10:11], v[8:9], 0, 11
	v_cmp_lt_u64_e64 s[28:29], v[10:11], v[16:17]
	v_lshl_add_u64 v[10:11], v[26:27], 0, 11
	s_and_b64 s[28:29], vcc, s[28:29]
	v_cndmask_b32_e64 v11, v7, v11, s[28:29]
	v_cndmask_b32_e64 v10, v6, v10, s[28:29]
	global_load_ubyte v39, v[10:11], off
	v_lshl_add_u64 v[10:11], v[8:9], 0, 12
	v_cmp_lt_u64_e64 s[30:31], v[10:11], v[16:17]
	v_lshl_add_u64 v[10:11], v[26:27], 0, 12
	s_and_b64 s[30:31], vcc, s[30:31]
	v_cndmask_b32_e64 v11, v7, v11, s[30:31]
	v_cndmask_b32_e64 v10, v6, v10, s[30:31]
	global_load_ubyte v40, v[10:11], off
	v_lshl_add_u64 v[10:11], v[8:9], 0, 13
	v_cmp_lt_u64_e64 s[34:35], v[10:11], v[16:17]
	v_lshl_add_u64 v[10:11], v[26:27], 0, 13
	s_and_b64 s[34:35], vcc, s[34:35]
	v_cndmask_b32_e64 v11, v7, v11, s[34:35]
	v_cndmask_b32_e64 v10, v6, v10, s[34:35]
	global_load_ubyte v41, v[10:11], off
	v_lshl_add_u64 v[10:11], v[8:9], 0, 14
	v_lshl_add_u64 v[8:9], v[8:9], 0, 15
	v_cmp_lt_u64_e64 s[36:37], v[10:11], v[16:17]
	v_cmp_lt_u64_e64 s[38:39], v[8:9], v[16:17]
	s_and_b64 s[36:37], vcc, s[36:37]
	v_lshl_add_u64 v[8:9], v[26:27], 0, 15
	s_and_b64 vcc, vcc, s[38:39]
	v_lshl_add_u64 v[10:11], v[26:27], 0, 14
	v_cndmask_b32_e32 v9, v7, v9, vcc
	v_cndmask_b32_e32 v8, v6, v8, vcc
	v_cndmask_b32_e64 v11, v7, v11, s[36:37]
	v_cndmask_b32_e64 v10, v6, v10, s[36:37]
	global_load_ubyte v8, v[8:9], off
	s_waitcnt vmcnt(14)
	v_cndmask_b32_e64 v9, 0, v13, s[6:7]
	global_load_ubyte v10, v[10:11], off
	s_waitcnt vmcnt(14)
	v_cndmask_b32_e64 v11, 0, v23, s[8:9]
	s_waitcnt vmcnt(12)
	v_cndmask_b32_e64 v23, 0, v31, s[12:13]
	v_cndmask_b32_e64 v13, 0, v25, s[10:11]
	s_waitcnt vmcnt(11)
	v_cndmask_b32_e64 v25, 0, v32, s[14:15]
	s_waitcnt vmcnt(10)
	v_cndmask_b32_e64 v26, 0, v33, s[16:17]
	s_waitcnt vmcnt(9)
	v_cndmask_b32_e64 v27, 0, v34, s[18:19]
	s_waitcnt vmcnt(8)
	v_cndmask_b32_e64 v31, 0, v35, s[20:21]
	s_waitcnt vmcnt(7)
	v_cndmask_b32_e64 v32, 0, v36, s[22:23]
	s_waitcnt vmcnt(6)
	v_cndmask_b32_e64 v33, 0, v37, s[24:25]
	s_waitcnt vmcnt(5)
	v_cndmask_b32_e64 v34, 0, v38, s[26:27]
	s_waitcnt vmcnt(4)
	v_cndmask_b32_e64 v35, 0, v39, s[28:29]
	s_waitcnt vmcnt(3)
	v_cndmask_b32_e64 v36, 0, v40, s[30:31]
	s_waitcnt vmcnt(2)
	v_cndmask_b32_e64 v37, 0, v41, s[34:35]
	s_waitcnt vmcnt(1)
	v_cndmask_b32_e32 v39, 0, v8, vcc
	v_lshlrev_b16_e32 v8, 8, v23
	s_waitcnt vmcnt(0)
	v_cndmask_b32_e64 v38, 0, v10, s[36:37]
	v_bitop3_b16 v8, v13, v8, s41 bitop3:0xec
	v_lshlrev_b16_e32 v10, 8, v11
	v_lshlrev_b32_e32 v8, 16, v8
	v_bitop3_b16 v9, v9, v10, s41 bitop3:0xec
	v_lshlrev_b16_e32 v10, 8, v31
	v_or_b32_sdwa v8, v9, v8 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:DWORD
	v_lshlrev_b16_e32 v9, 8, v26
	v_bitop3_b16 v10, v27, v10, s41 bitop3:0xec
	v_bitop3_b16 v9, v25, v9, s41 bitop3:0xec
	v_lshlrev_b32_e32 v10, 16, v10
	v_lshlrev_b16_e32 v11, 8, v35
	v_or_b32_sdwa v9, v9, v10 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:DWORD
	v_lshlrev_b16_e32 v10, 8, v33
	v_bitop3_b16 v11, v34, v11, s41 bitop3:0xec
	v_bitop3_b16 v10, v32, v10, s41 bitop3:0xec
	v_lshlrev_b32_e32 v11, 16, v11
	v_lshlrev_b16_e32 v13, 8, v39
	v_or_b32_sdwa v10, v10, v11 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:DWORD
	v_lshlrev_b16_e32 v11, 8, v37
	v_bitop3_b16 v13, v38, v13, s41 bitop3:0xec
	v_bitop3_b16 v11, v36, v11, s41 bitop3:0xec
	v_lshlrev_b32_e32 v13, 16, v13
	v_or_b32_sdwa v11, v11, v13 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:DWORD
.LBB0_16:
	s_andn2_saveexec_b64 s[6:7], s[50:51]
	s_cbranch_execz .LBB0_9
	global_load_dwordx4 v[8:11], v[26:27], off
	s_branch .LBB0_9
.LBB0_18:
	s_or_b64 exec, exec, s[44:45]
	v_xor_b32_e32 v0, 63, v0
	v_lshl_add_u64 v[0:1], v[0:1], 0, v[14:15]
	v_lshrrev_b64 v[0:1], 2, v[0:1]
	v_and_b32_e32 v0, -16, v0
	v_cndmask_b32_e64 v0, 0, v0, s[0:1]
	v_cndmask_b32_e64 v1, 0, v1, s[0:1]
	s_waitcnt vmcnt(1)
	v_sub_co_u32_e32 v4, vcc, 0, v0
	s_mov_b64 s[4:5], exec
	s_mov_b64 s[0:1], 0
	v_subb_co_u32_e32 v5, vcc, 0, v1, vcc
.LBB0_19:
	s_ff1_i32_b64 s6, s[4:5]
	s_mov_b32 m0, s6
	v_readlane_b32 s8, v4, s6
	v_readlane_b32 s7, v5, s6
	v_writelane_b32 v2, s0, m0
	s_add_u32 s0, s0, s8
	v_writelane_b32 v3, s1, m0
	s_addc_u32 s1, s1, s7
	s_lshl_b64 s[6:7], 1, s6
	s_andn2_b64 s[4:5], s[4:5], s[6:7]
	s_cbranch_scc1 .LBB0_19
	v_mbcnt_lo_u32_b32 v4, exec_lo, 0
	v_mbcnt_hi_u32_b32 v4, exec_hi, v4
	v_cmp_eq_u32_e32 vcc, 0, v4
	s_and_saveexec_b64 s[4:5], vcc
	s_xor_b64 s[4:5], exec, s[4:5]
	s_cbranch_execz .LBB0_22
	s_waitcnt vmcnt(0)
	v_mov_b32_e32 v6, 0
	v_mov_b64_e32 v[4:5], s[0:1]
	s_waitcnt lgkmcnt(0)
	ds_add_rtn_u64 v[4:5], v6, v[4:5] offset:8192
	s_waitcnt lgkmcnt(0)
.LBB0_22:
	s_or_b64 exec, exec, s[4:5]
	v_readfirstlane_b32 s1, v5
	v_readfirstlane_b32 s0, v4
	s_mov_b64 s[4:5], exec
	s_mov_b64 s[6:7], 0
	v_lshl_add_u64 v[2:3], s[0:1], 0, v[2:3]
	v_sub_co_u32_e32 v2, vcc, v2, v0
	v_mov_b32_e32 v4, v2
	s_nop 0
	v_subb_co_u32_e32 v3, vcc, v3, v1, vcc
	v_and_b32_e32 v5, 0x3ff, v3
	v_cmp_eq_u64_e32 vcc, 0, v[4:5]
	v_cmp_ne_u64_e64 s[0:1], 0, v[0:1]
	v_lshrrev_b64 v[0:1], 21, v[2:3]
	v_and_b32_e32 v0, 0xffe00000, v0
	v_and_b32_e32 v1, 0x3ff, v1
	s_and_b64 vcc, s[0:1], vcc
	v_cndmask_b32_e64 v1, 0, -|v1|, vcc
	v_cndmask_b32_e32 v0, 0, v0, vcc
.LBB0_23:
	s_ff1_i32_b64 s0, s[4:5]
	v_readlane_b32 s8, v0, s0
	v_readlane_b32 s1, v1, s0
	s_add_u32 s6, s6, s8
	s_addc_u32 s7, s7, s1
	s_lshl_b64 s[0:1], 1, s0
	s_andn2_b64 s[4:5], s[4:5], s[0:1]
	s_cbranch_scc1 .LBB0_23
	v_mbcnt_lo_u32_b32 v0, exec_lo, 0
	v_mbcnt_hi_u32_b32 v0, exec_hi, v0
	v_cmp_eq_u32_e32 vcc, 0, v0
	s_and_saveexec_b64 s[0:1], vcc
	s_xor_b64 s[0:1], exec, s[0:1]
	s_cbranch_execz .LBB0_26
	v_mov_b32_e32 v0, 0
	v_mov_b64_e32 v[2:3], s[6:7]
	s_waitcnt lgkmcnt(0)
	ds_add_u64 v0, v[2:3] offset:8192
.LBB0_26:
	s_or_b64 exec, exec, s[0:1]
	v_mov_b32_e32 v0, 0
.LBB0_27:
	ds_read_b64 v[2:3], v0 offset:8192
	s_waitcnt lgkmcnt(0)
	v_cmp_lt_i64_e32 vcc, -1, v[2:3]
	s_cbranch_vccnz .LBB0_27
	v_mov_b32_e32 v3, 0
	s_load_dwordx2 s[0:1], s[2:3], 0x10
	ds_read_u16 v1, v3
	s_mov_b64 s[4:5], exec
	v_mbcnt_lo_u32_b32 v0, s4, 0
	v_mbcnt_hi_u32_b32 v2, s5, v0
	v_cmp_eq_u32_e32 vcc, 0, v2
	s_waitcnt lgkmcnt(0)
	global_store_short v3, v1, s[0:1]
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_30
	s_bcnt1_i32_b64 s2, s[4:5]
	s_lshl_b32 s2, s2, 21
	s_sub_u32 s2, 0, s2
	s_subb_u32 s3, 0, 0
	v_mov_b64_e32 v[0:1], s[2:3]
	ds_add_rtn_u64 v[0:1], v3, v[0:1] offset:8192
	s_waitcnt lgkmcnt(0)
.LBB0_30:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s2, v1
	v_readfirstlane_b32 s3, v0
	v_lshlrev_b32_e32 v0, 21, v2
	v_mov_b32_e32 v1, s2
	v_sub_co_u32_e32 v0, vcc, s3, v0
	s_mov_b32 s2, 0xffe00000
	s_nop 0
	v_subbrev_co_u32_e32 v1, vcc, 0, v1, vcc
	s_mov_b32 s3, -1
	v_lshl_add_u64 v[0:1], v[0:1], 0, s[2:3]
	v_and_b32_e32 v3, 0x3ff, v1
	v_mov_b32_e32 v2, v0
	v_lshrrev_b64 v[0:1], 21, v[0:1]
	v_and_b32_e32 v0, 0xffe00000, v0
	v_and_b32_e32 v1, 0x3ff, v1
	v_cmp_eq_u64_e32 vcc, 0, v[2:3]
	s_mov_b64 s[0:1], exec
	s_mov_b64 s[2:3], 0
	v_cndmask_b32_e64 v1, 0, -|v1|, vcc
	v_cndmask_b32_e32 v0, 0, v0, vcc
.LBB0_31:
	s_ff1_i32_b64 s4, s[0:1]
	v_readlane_b32 s6, v0, s4
	v_readlane_b32 s5, v1, s4
	s_add_u32 s2, s2, s6
	s_addc_u32 s3, s3, s5
	s_lshl_b64 s[4:5], 1, s4
	s_andn2_b64 s[0:1], s[0:1], s[4:5]
	s_cbranch_scc1 .LBB0_31
	v_mbcnt_lo_u32_b32 v0, exec_lo, 0
	v_mbcnt_hi_u32_b32 v0, exec_hi, v0
	v_cmp_eq_u32_e32 vcc, 0, v0
	s_and_saveexec_b64 s[0:1], vcc
	s_xor_b64 s[0:1], exec, s[0:1]
	v_mov_b32_e32 v0, 0
	v_mov_b64_e32 v[2:3], s[2:3]
	ds_add_u64 v0, v[2:3] offset:8192
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel async_copy
		.amdhsa_group_segment_fixed_size 8200
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
		.amdhsa_next_free_vgpr 81
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
	.size	async_copy, .Lfunc_end0-async_copy

	.set async_copy.num_vgpr, 42
	.set async_copy.num_agpr, 0
	.set async_copy.numbered_sgpr, 52
	.set async_copy.num_named_barrier, 0
	.set async_copy.private_seg_size, 0
	.set async_copy.uses_vcc, 1
	.set async_copy.uses_flat_scratch, 0
	.set async_copy.has_dyn_sized_stack, 0
	.set async_copy.has_recursion, 0
	.set async_copy.has_indirect_call, 0
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
      - .name:           x
        .offset:         8
        .size:           4
        .value_kind:     by_value
      - .name:           y
        .offset:         12
        .size:           4
        .value_kind:     by_value
      - .address_space:  global
        .name:           out
        .offset:         16
        .size:           8
        .value_kind:     global_buffer
      - .name:           map.len
        .offset:         24
        .size:           8
        .value_kind:     by_value
      - .name:           out.len
        .offset:         32
        .size:           8
        .value_kind:     by_value
      - .address_space:  global
        .name:           bounds_record
        .offset:         40
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 8200
    .kernarg_segment_align: 8
    .kernarg_segment_size: 48
    .max_flat_workgroup_size: 64
    .name:           async_copy
    .private_segment_fixed_size: 0
    .sgpr_count:     58
    .sgpr_spill_count: 0
    .symbol:         async_copy.kd
    .uses_dynamic_stack: false
    .vgpr_count:     42
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx950
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
