	.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
	.amdhsa_code_object_version 5
	.text
	.globl	wide_bf16_store
	.p2align	8
	.type	wide_bf16_store,@function
wide_bf16_store:
	s_load_dword s6, s[0:1], 0x4
	s_load_dwordx2 s[4:5], s[2:3], 0x0
	s_load_dwordx4 s[8:11], s[2:3], 0x8
	v_bfe_u32 v1, v0, 10, 10
	v_bfe_u32 v2, v0, 20, 10
	s_waitcnt lgkmcnt(0)
	s_lshr_b32 s0, s6, 16
	v_mad_u32_u24 v1, v2, s0, v1
	s_and_b32 s0, s6, 0xffff
	v_and_b32_e32 v0, 0x3ff, v0
	v_mad_u64_u32 v[0:1], s[0:1], v1, s0, v[0:1]
	v_lshrrev_b32_e32 v1, 2, v0
	v_and_b32_e32 v2, 0x3ffffff0, v1
	v_and_b32_e32 v1, 12, v1
	v_and_b32_e32 v0, 15, v0
	v_mul_lo_u32 v62, v2, s8
	v_mad_u64_u32 v[2:3], s[0:1], v1, s8, v[0:1]
	v_mov_b32_e32 v63, 0
	v_add_u32_e32 v6, s8, v2
	v_lshl_add_u64 v[4:5], v[62:63], 1, s[4:5]
	v_lshlrev_b32_e32 v62, 1, v2
	v_lshlrev_b32_e32 v2, 1, v6
	v_mov_b32_e32 v3, v63
	v_lshl_add_u64 v[64:65], v[4:5], 0, v[2:3]
	v_add_u32_e32 v3, s8, v6
	v_add_u32_e32 v6, 32, v62
	v_mov_b32_e32 v7, v63
	v_lshlrev_b32_e32 v14, 1, v3
	v_lshl_add_u64 v[56:57], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 32, v2
	v_add_lshl_u32 v68, v3, s8, 1
	v_lshl_add_u64 v[54:55], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 32, v14
	v_lshl_add_u64 v[52:53], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 32, v68
	v_lshl_add_u64 v[50:51], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 64, v62
	v_lshl_add_u64 v[48:49], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 64, v2
	v_lshl_add_u64 v[46:47], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 64, v14
	v_lshl_add_u64 v[44:45], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 64, v68
	v_lshl_add_u64 v[42:43], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 0x60, v62
	v_lshl_add_u64 v[40:41], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 0x60, v2
	v_lshl_add_u64 v[38:39], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 0x60, v14
	v_lshl_add_u64 v[36:37], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 0x60, v68
	v_lshl_add_u64 v[34:35], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 0x80, v62
	v_lshl_add_u64 v[32:33], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 0x80, v2
	v_lshl_add_u64 v[30:31], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 0x80, v14
	v_lshl_add_u64 v[28:29], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 0x80, v68
	v_lshl_add_u64 v[26:27], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 0xa0, v62
	v_lshl_add_u64 v[24:25], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 0xa0, v2
	v_lshl_add_u64 v[22:23], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 0xa0, v14
	v_lshl_add_u64 v[18:19], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 0xa0, v68
	v_lshl_add_u64 v[66:67], v[4:5], 0, v[62:63]
	v_lshl_add_u64 v[12:13], v[4:5], 0, v[6:7]
	v_add_u32_e32 v6, 0xc0, v62
	v_add_u32_e32 v62, 0xe0, v62
	v_lshl_add_u64 v[8:9], v[4:5], 0, v[62:63]
	v_add_u32_e32 v62, 0xe0, v2
	v_add_u32_e32 v2, 0xc0, v2
	v_mov_b32_e32 v3, v63
	v_mov_b32_e32 v15, v63
	v_lshl_add_u64 v[10:11], v[4:5], 0, v[6:7]
	v_lshl_add_u64 v[20:21], v[4:5], 0, v[2:3]
	v_lshl_add_u64 v[6:7], v[4:5], 0, v[62:63]
	v_add_u32_e32 v62, 0xe0, v14
	v_add_u32_e32 v2, 0xc0, v14
	v_lshl_add_u64 v[60:61], v[4:5], 0, v[14:15]
	v_mov_b32_e32 v69, v63
	v_lshl_add_u64 v[16:17], v[4:5], 0, v[2:3]
	v_lshl_add_u64 v[2:3], v[4:5], 0, v[62:63]
	v_add_u32_e32 v62, 0xe0, v68
	v_add_u32_e32 v14, 0xc0, v68
	v_cmp_gt_u32_e32 vcc, s9, v1
	v_cmp_gt_u32_e64 s[6:7], s10, v0
	v_lshl_add_u64 v[58:59], v[4:5], 0, v[68:69]
	v_lshl_add_u64 v[14:15], v[4:5], 0, v[14:15]
	v_lshl_add_u64 v[4:5], v[4:5], 0, v[62:63]
	s_and_b64 s[2:3], s[6:7], vcc
	global_store_short v[66:67], v63, off
	global_store_short v[64:65], v63, off
	global_store_short v[60:61], v63, off
	global_store_short v[58:59], v63, off
	global_store_short v[56:57], v63, off
	global_store_short v[54:55], v63, off
	global_store_short v[52:53], v63, off
	global_store_short v[50:51], v63, off
	global_store_short v[48:49], v63, off
	global_store_short v[46:47], v63, off
	global_store_short v[44:45], v63, off
	global_store_short v[42:43], v63, off
	global_store_short v[40:41], v63, off
	global_store_short v[38:39], v63, off
	global_store_short v[36:37], v63, off
	global_store_short v[34:35], v63, off
	global_store_short v[32:33], v63, off
	global_store_short v[30:31], v63, off
	global_store_short v[28:29], v63, off
	global_store_short v[26:27], v63, off
	global_store_short v[24:25], v63, off
	global_store_short v[22:23], v63, off
	global_store_short v[18:19], v63, off
	global_store_short v[12:13], v63, off
	global_store_short v[10:11], v63, off
	global_store_short v[20:21], v63, off
	global_store_short v[16:17], v63, off
	global_store_short v[14:15], v63, off
	global_store_short v[8:9], v63, off
	global_store_short v[6:7], v63, off
	global_store_short v[2:3], v63, off
	global_store_short v[4:5], v63, off
	s_and_saveexec_b64 s[0:1], s[2:3]
	s_cbranch_execz .LBB0_2
	global_store_short v[66:67], v63, off
.LBB0_2:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v62, 1, v1
	v_cmp_gt_u32_e64 s[0:1], s9, v62
	s_and_b64 s[4:5], s[6:7], s[0:1]
	s_and_saveexec_b64 s[2:3], s[4:5]
	s_cbranch_execz .LBB0_4
	v_mov_b32_e32 v62, 0
	global_store_short v[64:65], v62, off
.LBB0_4:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v62, 2, v1
	v_cmp_gt_u32_e64 s[2:3], s9, v62
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[4:5], s[12:13]
	s_cbranch_execz .LBB0_6
	v_mov_b32_e32 v62, 0
	global_store_short v[60:61], v62, off
.LBB0_6:
	s_or_b64 exec, exec, s[4:5]
	v_or_b32_e32 v1, 3, v1
	v_cmp_gt_u32_e64 s[4:5], s9, v1
	s_and_b64 s[8:9], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[8:9]
	s_cbranch_execz .LBB0_8
	v_mov_b32_e32 v1, 0
	global_store_short v[58:59], v1, off
.LBB0_8:
	s_or_b64 exec, exec, s[6:7]
	v_or_b32_e32 v1, 16, v0
	v_cmp_gt_u32_e64 s[6:7], s10, v1
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_43
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_44
.LBB0_10:
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_45
.LBB0_11:
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[8:9]
	s_cbranch_execz .LBB0_13
.LBB0_12:
	v_mov_b32_e32 v1, 0
	global_store_short v[50:51], v1, off
.LBB0_13:
	s_or_b64 exec, exec, s[6:7]
	v_or_b32_e32 v1, 32, v0
	v_cmp_gt_u32_e64 s[6:7], s10, v1
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_46
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_47
.LBB0_15:
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_48
.LBB0_16:
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[8:9]
	s_cbranch_execz .LBB0_18
.LBB0_17:
	v_mov_b32_e32 v1, 0
	global_store_short v[42:43], v1, off
.LBB0_18:
	s_or_b64 exec, exec, s[6:7]
	v_or_b32_e32 v1, 48, v0
	v_cmp_gt_u32_e64 s[6:7], s10, v1
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_49
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_50
.LBB0_20:
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_51
.LBB0_21:
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[8:9]
	s_cbranch_execz .LBB0_23
.LBB0_22:
	v_mov_b32_e32 v1, 0
	global_store_short v[34:35], v1, off
.LBB0_23:
	s_or_b64 exec, exec, s[6:7]
	v_or_b32_e32 v1, 64, v0
	v_cmp_gt_u32_e64 s[6:7], s10, v1
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_52
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_53
.LBB0_25:
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_54
.LBB0_26:
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[8:9]
	s_cbranch_execz .LBB0_28
.LBB0_27:
	v_mov_b32_e32 v1, 0
	global_store_short v[26:27], v1, off
.LBB0_28:
	s_or_b64 exec, exec, s[6:7]
	v_or_b32_e32 v1, 0x50, v0
	v_cmp_gt_u32_e64 s[6:7], s10, v1
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_55
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_56
.LBB0_30:
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_57
.LBB0_31:
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[8:9]
	s_cbranch_execz .LBB0_33
.LBB0_32:
	v_mov_b32_e32 v1, 0
	global_store_short v[12:13], v1, off
.LBB0_33:
	s_or_b64 exec, exec, s[6:7]
	v_or_b32_e32 v1, 0x60, v0
	v_cmp_gt_u32_e64 s[6:7], s10, v1
	s_and_b64 s[12:13], vcc, s[6:7]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_58
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_59
.LBB0_35:
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execnz .LBB0_60
.LBB0_36:
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[8:9]
	s_cbranch_execz .LBB0_38
.LBB0_37:
	v_mov_b32_e32 v1, 0
	global_store_short v[14:15], v1, off
.LBB0_38:
	s_or_b64 exec, exec, s[6:7]
	v_or_b32_e32 v0, 0x70, v0
	v_cmp_gt_u32_e64 s[6:7], s10, v0
	s_and_b64 s[10:11], vcc, s[6:7]
	s_and_saveexec_b64 s[8:9], s[10:11]
	s_cbranch_execnz .LBB0_61
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[0:1]
	s_and_saveexec_b64 s[0:1], s[8:9]
	s_cbranch_execnz .LBB0_62
.LBB0_40:
	s_or_b64 exec, exec, s[0:1]
	s_and_b64 s[2:3], s[6:7], s[2:3]
	s_and_saveexec_b64 s[0:1], s[2:3]
	s_cbranch_execnz .LBB0_63
.LBB0_41:
	s_or_b64 exec, exec, s[0:1]
	s_and_b64 s[0:1], s[6:7], s[4:5]
	s_and_saveexec_b64 s[2:3], s[0:1]
	s_cbranch_execnz .LBB0_64
.LBB0_42:
	s_endpgm
.LBB0_43:
	v_mov_b32_e32 v1, 0
	global_store_short v[56:57], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execz .LBB0_10
.LBB0_44:
	v_mov_b32_e32 v1, 0
	global_store_short v[54:55], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execz .LBB0_11
.LBB0_45:
	v_mov_b32_e32 v1, 0
	global_store_short v[52:53], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[8:9]
	s_cbranch_execnz .LBB0_12
	s_branch .LBB0_13
.LBB0_46:
	v_mov_b32_e32 v1, 0
	global_store_short v[48:49], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execz .LBB0_15
.LBB0_47:
	v_mov_b32_e32 v1, 0
	global_store_short v[46:47], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execz .LBB0_16
.LBB0_48:
	v_mov_b32_e32 v1, 0
	global_store_short v[44:45], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[8:9]
	s_cbranch_execnz .LBB0_17
	s_branch .LBB0_18
.LBB0_49:
	v_mov_b32_e32 v1, 0
	global_store_short v[40:41], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execz .LBB0_20
.LBB0_50:
	v_mov_b32_e32 v1, 0
	global_store_short v[38:39], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execz .LBB0_21
.LBB0_51:
	v_mov_b32_e32 v1, 0
	global_store_short v[36:37], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[8:9]
	s_cbranch_execnz .LBB0_22
	s_branch .LBB0_23
.LBB0_52:
	v_mov_b32_e32 v1, 0
	global_store_short v[32:33], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execz .LBB0_25
.LBB0_53:
	v_mov_b32_e32 v1, 0
	global_store_short v[30:31], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execz .LBB0_26
.LBB0_54:
	v_mov_b32_e32 v1, 0
	global_store_short v[28:29], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[8:9]
	s_cbranch_execnz .LBB0_27
	s_branch .LBB0_28
.LBB0_55:
	v_mov_b32_e32 v1, 0
	global_store_short v[24:25], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execz .LBB0_30
.LBB0_56:
	v_mov_b32_e32 v1, 0
	global_store_short v[22:23], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execz .LBB0_31
.LBB0_57:
	v_mov_b32_e32 v1, 0
	global_store_short v[18:19], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[8:9]
	s_cbranch_execnz .LBB0_32
	s_branch .LBB0_33
.LBB0_58:
	v_mov_b32_e32 v1, 0
	global_store_short v[10:11], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[0:1]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execz .LBB0_35
.LBB0_59:
	v_mov_b32_e32 v1, 0
	global_store_short v[20:21], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[12:13], s[6:7], s[2:3]
	s_and_saveexec_b64 s[8:9], s[12:13]
	s_cbranch_execz .LBB0_36
.LBB0_60:
	v_mov_b32_e32 v1, 0
	global_store_short v[16:17], v1, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[4:5]
	s_and_saveexec_b64 s[6:7], s[8:9]
	s_cbranch_execnz .LBB0_37
	s_branch .LBB0_38
.LBB0_61:
	v_mov_b32_e32 v0, 0
	global_store_short v[8:9], v0, off
	s_or_b64 exec, exec, s[8:9]
	s_and_b64 s[8:9], s[6:7], s[0:1]
	s_and_saveexec_b64 s[0:1], s[8:9]
	s_cbranch_execz .LBB0_40
.LBB0_62:
	v_mov_b32_e32 v0, 0
	global_store_short v[6:7], v0, off
	s_or_b64 exec, exec, s[0:1]
	s_and_b64 s[2:3], s[6:7], s[2:3]
	s_and_saveexec_b64 s[0:1], s[2:3]
	s_cbranch_execz .LBB0_41
.LBB0_63:
	v_mov_b32_e32 v0, 0
	global_store_short v[2:3], v0, off
	s_or_b64 exec, exec, s[0:1]
	s_and_b64 s[0:1], s[6:7], s[4:5]
	s_and_saveexec_b64 s[2:3], s[0:1]
	s_cbranch_execz .LBB0_42
.LBB0_64:
	v_mov_b32_e32 v0, 0
	global_store_short v[4:5], v0, off
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel wide_bf16_store
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 40
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
		.amdhsa_next_free_vgpr 70
		.amdhsa_next_free_sgpr 14
		.amdhsa_accum_offset 72
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
	.size	wide_bf16_store, .Lfunc_end0-wide_bf16_store

	.set wide_bf16_store.num_vgpr, 70
	.set wide_bf16_store.num_agpr, 0
	.set wide_bf16_store.numbered_sgpr, 14
	.set wide_bf16_store.num_named_barrier, 0
	.set wide_bf16_store.private_seg_size, 0
	.set wide_bf16_store.uses_vcc, 1
	.set wide_bf16_store.uses_flat_scratch, 0
	.set wide_bf16_store.has_dyn_sized_stack, 0
	.set wide_bf16_store.has_recursion, 0
	.set wide_bf16_store.has_indirect_call, 0
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
        .name:           c
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .name:           stride
        .offset:         8
        .size:           4
        .value_kind:     by_value
      - .name:           rows
        .offset:         12
        .size:           4
        .value_kind:     by_value
      - .name:           cols
        .offset:         16
        .size:           4
        .value_kind:     by_value
      - .name:           c.len
        .offset:         24
        .size:           8
        .value_kind:     by_value
      - .address_space:  global
        .name:           bounds_record
        .offset:         32
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 40
    .max_flat_workgroup_size: 128
    .name:           wide_bf16_store
    .private_segment_fixed_size: 0
    .sgpr_count:     20
    .sgpr_spill_count: 0
    .symbol:         wide_bf16_store.kd
    .uses_dynamic_stack: false
    .vgpr_count:     70
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx950
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
