	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl	group_layouts
	.p2align	8
	.type	group_layouts,@function
group_layouts:
	s_load_dwordx4 s[4:7], s[2:3], 0x0
	s_load_dword s8, s[0:1], 0x4
	v_bfe_u32 v1, v0, 10, 10
	v_bfe_u32 v2, v0, 20, 10
	v_and_b32_e32 v8, 0x3ff, v0
	s_waitcnt lgkmcnt(0)
	v_mov_b32_e32 v4, s4
	s_lshr_b32 s0, s8, 16
	v_mad_u32_u24 v9, v2, s0, v1
	v_mfma_f32_16x16x16_bf16 v[0:3], v[0:1], v[0:1], 0
	s_and_b32 s0, s8, 0xffff
	v_mad_u64_u32 v[8:9], s[0:1], v9, s0, v[8:9]
	v_lshrrev_b32_e32 v27, 6, v8
	v_mov_b32_e32 v5, s5
	v_and_b32_e32 v22, 15, v8
	s_nop 1
	v_mfma_f32_16x16x16_bf16 v[0:3], v[0:1], v[0:1], v[0:3]
	v_lshrrev_b32_e32 v8, 2, v8
	v_mov_b32_e32 v33, 0
	v_lshlrev_b32_e32 v32, 11, v27
	v_and_b32_e32 v24, 12, v8
	v_lshl_add_u64 v[8:9], v[32:33], 2, v[4:5]
	v_mov_b32_e32 v6, s6
	s_nop 0
	v_mfma_f32_16x16x16_bf16 v[0:3], v[0:1], v[0:1], v[0:3]
	v_mov_b32_e32 v7, s7
	v_lshlrev_b32_e32 v28, 9, v24
	v_or_b32_e32 v23, 16, v22
	v_or_b32_e32 v25, 32, v22
	v_or_b32_e32 v26, 48, v22
	v_or_b32_e32 v34, 64, v22
	s_nop 0
	v_mfma_f32_16x16x16_bf16 v[0:3], v[0:1], v[0:1], v[0:3]
	v_or_b32_e32 v35, 0x50, v22
	v_or_b32_e32 v36, 0x60, v22
	v_or_b32_e32 v37, 0x70, v22
	s_movk_i32 s0, 0x7fff
	v_lshlrev_b32_e32 v31, 1, v22
	v_lshlrev_b32_e32 v30, 1, v23
	s_nop 0
	v_mfma_f32_16x16x16_bf16 v[0:3], v[0:1], v[0:1], v[0:3]
	v_lshlrev_b32_e32 v29, 1, v25
	s_nop 5
	v_mfma_f32_16x16x16_bf16 v[2:5], v[0:1], v[0:1], v[0:3]
	s_nop 2
	v_lshl_add_u64 v[0:1], v[32:33], 1, v[6:7]
	v_lshl_or_b32 v32, v22, 2, v28
	v_lshl_add_u64 v[6:7], v[8:9], 0, v[32:33]
	v_lshl_or_b32 v32, v23, 2, v28
	v_mfma_f32_16x16x16_bf16 v[2:5], v[0:1], v[0:1], v[2:5]
	v_lshl_add_u64 v[10:11], v[8:9], 0, v[32:33]
	v_lshl_or_b32 v32, v25, 2, v28
	v_lshl_add_u64 v[12:13], v[8:9], 0, v[32:33]
	v_lshl_or_b32 v32, v26, 2, v28
	v_lshl_add_u64 v[14:15], v[8:9], 0, v[32:33]
	v_lshl_or_b32 v32, v34, 2, v28
	v_mfma_f32_16x16x16_bf16 v[2:5], v[0:1], v[0:1], v[2:5]
	v_lshl_add_u64 v[16:17], v[8:9], 0, v[32:33]
	v_lshl_or_b32 v32, v35, 2, v28
	v_lshl_add_u64 v[18:19], v[8:9], 0, v[32:33]
	v_lshl_or_b32 v32, v36, 2, v28
	v_lshl_add_u64 v[20:21], v[8:9], 0, v[32:33]
	v_lshl_or_b32 v32, v37, 2, v28
	v_mfma_f32_16x16x16_bf16 v[2:5], v[0:1], v[0:1], v[2:5]
	v_lshl_add_u64 v[8:9], v[8:9], 0, v[32:33]
	v_lshlrev_b32_e32 v28, 1, v26
	v_lshlrev_b32_e32 v26, 1, v34
	v_lshlrev_b32_e32 v25, 1, v35
	v_lshlrev_b32_e32 v23, 1, v36
	v_lshlrev_b32_e32 v22, 1, v37
	v_mfma_f32_16x16x16_bf16 v[2:5], v[0:1], v[0:1], v[2:5]
	v_mfma_f32_16x16x16_bf16 v[2:5], v[0:1], v[0:1], v[2:5]
	v_mfma_f32_16x16x16_bf16 v[2:5], v[0:1], v[0:1], v[2:5]
	s_nop 6
	global_store_dword v[6:7], v2, off
	global_store_dword v[6:7], v3, off offset:512
	global_store_dword v[6:7], v4, off offset:1024
	global_store_dword v[6:7], v5, off offset:1536
	global_store_dword v[10:11], v2, off
	global_store_dword v[10:11], v3, off offset:512
	global_store_dword v[10:11], v4, off offset:1024
	global_store_dword v[10:11], v5, off offset:1536
	global_store_dword v[12:13], v2, off
	global_store_dword v[12:13], v3, off offset:512
	global_store_dword v[12:13], v4, off offset:1024
	global_store_dword v[12:13], v5, off offset:1536
	global_store_dword v[14:15], v2, off
	global_store_dword v[14:15], v3, off offset:512
	global_store_dword v[14:15], v4, off offset:1024
	global_store_dword v[14:15], v5, off offset:1536
	global_store_dword v[16:17], v2, off
	global_store_dword v[16:17], v3, off offset:512
	global_store_dword v[16:17], v4, off offset:1024
	global_store_dword v[16:17], v5, off offset:1536
	global_store_dword v[18:19], v2, off
	global_store_dword v[18:19], v3, off offset:512
	global_store_dword v[18:19], v4, off offset:1024
	global_store_dword v[18:19], v5, off offset:1536
	global_store_dword v[20:21], v2, off
	global_store_dword v[20:21], v3, off offset:512
	global_store_dword v[20:21], v4, off offset:1024
	global_store_dword v[20:21], v5, off offset:1536
	global_store_dword v[8:9], v2, off
	global_store_dword v[8:9], v3, off offset:512
	global_store_dword v[8:9], v4, off offset:1024
	global_store_dword v[8:9], v5, off offset:1536
	v_bfe_u32 v6, v5, 16, 1
	v_add3_u32 v6, v6, v5, s0
	v_or_b32_e32 v7, 0x400000, v5
	v_cmp_u_f32_e32 vcc, v5, v5
	s_nop 1
	v_cndmask_b32_e32 v5, v6, v7, vcc
	v_lshrrev_b32_e32 v18, 16, v5
	v_bfe_u32 v5, v4, 16, 1
	v_add3_u32 v5, v5, v4, s0
	v_or_b32_e32 v6, 0x400000, v4
	v_cmp_u_f32_e32 vcc, v4, v4
	s_nop 1
	v_cndmask_b32_e32 v4, v5, v6, vcc
	v_lshrrev_b32_e32 v19, 16, v4
	v_bfe_u32 v4, v3, 16, 1
	v_add3_u32 v4, v4, v3, s0
	v_or_b32_e32 v5, 0x400000, v3
	v_cmp_u_f32_e32 vcc, v3, v3
	s_nop 1
	v_cndmask_b32_e32 v3, v4, v5, vcc
	v_lshrrev_b32_e32 v20, 16, v3
	v_bfe_u32 v3, v2, 16, 1
	v_add3_u32 v3, v3, v2, s0
	v_or_b32_e32 v4, 0x400000, v2
	v_cmp_u_f32_e32 vcc, v2, v2
	s_nop 1
	v_cndmask_b32_e32 v2, v3, v4, vcc
	v_lshrrev_b32_e32 v21, 16, v2
	v_lshlrev_b32_e32 v2, 8, v24
	v_or_b32_e32 v32, v2, v31
	v_lshl_add_u64 v[16:17], v[0:1], 0, v[32:33]
	v_or_b32_e32 v32, v2, v30
	v_lshl_add_u64 v[14:15], v[0:1], 0, v[32:33]
	v_or_b32_e32 v32, v2, v29
	v_lshl_add_u64 v[12:13], v[0:1], 0, v[32:33]
	v_or_b32_e32 v32, v2, v28
	v_lshl_add_u64 v[10:11], v[0:1], 0, v[32:33]
	v_or_b32_e32 v32, v2, v26
	v_lshl_add_u64 v[8:9], v[0:1], 0, v[32:33]
	v_or_b32_e32 v32, v2, v25
	v_lshl_add_u64 v[6:7], v[0:1], 0, v[32:33]
	v_or_b32_e32 v32, v2, v23
	v_lshl_add_u64 v[4:5], v[0:1], 0, v[32:33]
	v_or_b32_e32 v32, v2, v22
	v_lshl_add_u64 v[2:3], v[0:1], 0, v[32:33]
	v_cmp_lt_u32_e32 vcc, v24, v27
	global_store_short v[16:17], v21, off
	global_store_short v[16:17], v20, off offset:256
	global_store_short v[16:17], v19, off offset:512
	global_store_short v[16:17], v18, off offset:768
	global_store_short v[14:15], v21, off
	global_store_short v[14:15], v20, off offset:256
	global_store_short v[14:15], v19, off offset:512
	global_store_short v[14:15], v18, off offset:768
	global_store_short v[12:13], v21, off
	global_store_short v[12:13], v20, off offset:256
	global_store_short v[12:13], v19, off offset:512
	global_store_short v[12:13], v18, off offset:768
	global_store_short v[10:11], v21, off
	global_store_short v[10:11], v20, off offset:256
	global_store_short v[10:11], v19, off offset:512
	global_store_short v[10:11], v18, off offset:768
	global_store_short v[8:9], v21, off
	global_store_short v[8:9], v20, off offset:256
	global_store_short v[8:9], v19, off offset:512
	global_store_short v[8:9], v18, off offset:768
	global_store_short v[6:7], v21, off
	global_store_short v[6:7], v20, off offset:256
	global_store_short v[6:7], v19, off offset:512
	global_store_short v[6:7], v18, off offset:768
	global_store_short v[4:5], v21, off
	global_store_short v[4:5], v20, off offset:256
	global_store_short v[4:5], v19, off offset:512
	global_store_short v[4:5], v18, off offset:768
	global_store_short v[2:3], v21, off
	global_store_short v[2:3], v20, off offset:256
	global_store_short v[2:3], v19, off offset:512
	global_store_short v[2:3], v18, off offset:768
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_2
	global_store_short v[16:17], v21, off
.LBB0_2:
	s_or_b64 exec, exec, s[0:1]
	v_or_b32_e32 v17, 1, v24
	v_lshlrev_b32_e32 v16, 8, v17
	v_cmp_lt_u32_e64 s[0:1], v17, v27
	s_and_saveexec_b64 s[2:3], s[0:1]
	s_cbranch_execz .LBB0_4
	v_or_b32_e32 v32, v16, v31
	v_mov_b32_e32 v33, 0
	v_lshl_add_u64 v[32:33], v[0:1], 0, v[32:33]
	global_store_short v[32:33], v20, off
.LBB0_4:
	s_or_b64 exec, exec, s[2:3]
	v_or_b32_e32 v32, 2, v24
	v_lshlrev_b32_e32 v17, 8, v32
	v_cmp_lt_u32_e64 s[2:3], v32, v27
	s_and_saveexec_b64 s[4:5], s[2:3]
	s_cbranch_execz .LBB0_6
	v_or_b32_e32 v32, v17, v31
	v_mov_b32_e32 v33, 0
	v_lshl_add_u64 v[32:33], v[0:1], 0, v[32:33]
	global_store_short v[32:33], v19, off
.LBB0_6:
	s_or_b64 exec, exec, s[4:5]
	v_or_b32_e32 v32, 3, v24
	v_lshlrev_b32_e32 v24, 8, v32
	v_cmp_lt_u32_e64 s[4:5], v32, v27
	s_and_saveexec_b64 s[6:7], s[4:5]
	s_cbranch_execnz .LBB0_36
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execnz .LBB0_37
.LBB0_8:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[0:1]
	s_cbranch_execnz .LBB0_38
.LBB0_9:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[2:3]
	s_cbranch_execnz .LBB0_39
.LBB0_10:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[4:5]
	s_cbranch_execnz .LBB0_40
.LBB0_11:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execnz .LBB0_41
.LBB0_12:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[0:1]
	s_cbranch_execnz .LBB0_42
.LBB0_13:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[2:3]
	s_cbranch_execnz .LBB0_43
.LBB0_14:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[4:5]
	s_cbranch_execnz .LBB0_44
.LBB0_15:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execnz .LBB0_45
.LBB0_16:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[0:1]
	s_cbranch_execnz .LBB0_46
.LBB0_17:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[2:3]
	s_cbranch_execnz .LBB0_47
.LBB0_18:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[4:5]
	s_cbranch_execnz .LBB0_48
.LBB0_19:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execnz .LBB0_49
.LBB0_20:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[0:1]
	s_cbranch_execnz .LBB0_50
.LBB0_21:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[2:3]
	s_cbranch_execnz .LBB0_51
.LBB0_22:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[4:5]
	s_cbranch_execnz .LBB0_52
.LBB0_23:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execnz .LBB0_53
.LBB0_24:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[0:1]
	s_cbranch_execnz .LBB0_54
.LBB0_25:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[2:3]
	s_cbranch_execnz .LBB0_55
.LBB0_26:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[4:5]
	s_cbranch_execnz .LBB0_56
.LBB0_27:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execnz .LBB0_57
.LBB0_28:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[0:1]
	s_cbranch_execnz .LBB0_58
.LBB0_29:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[2:3]
	s_cbranch_execnz .LBB0_59
.LBB0_30:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[4:5]
	s_cbranch_execnz .LBB0_60
.LBB0_31:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execnz .LBB0_61
.LBB0_32:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[0:1]
	s_cbranch_execnz .LBB0_62
.LBB0_33:
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[0:1], s[2:3]
	s_cbranch_execnz .LBB0_63
.LBB0_34:
	s_or_b64 exec, exec, s[0:1]
	s_and_saveexec_b64 s[0:1], s[4:5]
	s_cbranch_execnz .LBB0_64
.LBB0_35:
	s_endpgm
.LBB0_36:
	v_or_b32_e32 v32, v24, v31
	v_mov_b32_e32 v33, 0
	v_lshl_add_u64 v[32:33], v[0:1], 0, v[32:33]
	global_store_short v[32:33], v18, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execz .LBB0_8
.LBB0_37:
	global_store_short v[14:15], v21, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[0:1]
	s_cbranch_execz .LBB0_9
.LBB0_38:
	v_or_b32_e32 v14, v16, v30
	v_mov_b32_e32 v15, 0
	v_lshl_add_u64 v[14:15], v[0:1], 0, v[14:15]
	global_store_short v[14:15], v20, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[2:3]
	s_cbranch_execz .LBB0_10
.LBB0_39:
	v_or_b32_e32 v14, v17, v30
	v_mov_b32_e32 v15, 0
	v_lshl_add_u64 v[14:15], v[0:1], 0, v[14:15]
	global_store_short v[14:15], v19, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[4:5]
	s_cbranch_execz .LBB0_11
.LBB0_40:
	v_or_b32_e32 v14, v24, v30
	v_mov_b32_e32 v15, 0
	v_lshl_add_u64 v[14:15], v[0:1], 0, v[14:15]
	global_store_short v[14:15], v18, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execz .LBB0_12
.LBB0_41:
	global_store_short v[12:13], v21, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[0:1]
	s_cbranch_execz .LBB0_13
.LBB0_42:
	v_or_b32_e32 v12, v16, v29
	v_mov_b32_e32 v13, 0
	v_lshl_add_u64 v[12:13], v[0:1], 0, v[12:13]
	global_store_short v[12:13], v20, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[2:3]
	s_cbranch_execz .LBB0_14
.LBB0_43:
	v_or_b32_e32 v12, v17, v29
	v_mov_b32_e32 v13, 0
	v_lshl_add_u64 v[12:13], v[0:1], 0, v[12:13]
	global_store_short v[12:13], v19, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[4:5]
	s_cbranch_execz .LBB0_15
.LBB0_44:
	v_or_b32_e32 v12, v24, v29
	v_mov_b32_e32 v13, 0
	v_lshl_add_u64 v[12:13], v[0:1], 0, v[12:13]
	global_store_short v[12:13], v18, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execz .LBB0_16
.LBB0_45:
	global_store_short v[10:11], v21, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[0:1]
	s_cbranch_execz .LBB0_17
.LBB0_46:
	v_or_b32_e32 v10, v16, v28
	v_mov_b32_e32 v11, 0
	v_lshl_add_u64 v[10:11], v[0:1], 0, v[10:11]
	global_store_short v[10:11], v20, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[2:3]
	s_cbranch_execz .LBB0_18
.LBB0_47:
	v_or_b32_e32 v10, v17, v28
	v_mov_b32_e32 v11, 0
	v_lshl_add_u64 v[10:11], v[0:1], 0, v[10:11]
	global_store_short v[10:11], v19, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[4:5]
	s_cbranch_execz .LBB0_19
.LBB0_48:
	v_or_b32_e32 v10, v24, v28
	v_mov_b32_e32 v11, 0
	v_lshl_add_u64 v[10:11], v[0:1], 0, v[10:11]
	global_store_short v[10:11], v18, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execz .LBB0_20
.LBB0_49:
	global_store_short v[8:9], v21, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[0:1]
	s_cbranch_execz .LBB0_21
.LBB0_50:
	v_or_b32_e32 v8, v16, v26
	v_mov_b32_e32 v9, 0
	v_lshl_add_u64 v[8:9], v[0:1], 0, v[8:9]
	global_store_short v[8:9], v20, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[2:3]
	s_cbranch_execz .LBB0_22
.LBB0_51:
	v_or_b32_e32 v8, v17, v26
	v_mov_b32_e32 v9, 0
	v_lshl_add_u64 v[8:9], v[0:1], 0, v[8:9]
	global_store_short v[8:9], v19, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[4:5]
	s_cbranch_execz .LBB0_23
.LBB0_52:
	v_or_b32_e32 v8, v24, v26
	v_mov_b32_e32 v9, 0
	v_lshl_add_u64 v[8:9], v[0:1], 0, v[8:9]
	global_store_short v[8:9], v18, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execz .LBB0_24
.LBB0_53:
	global_store_short v[6:7], v21, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[0:1]
	s_cbranch_execz .LBB0_25
.LBB0_54:
	v_or_b32_e32 v6, v16, v25
	v_mov_b32_e32 v7, 0
	v_lshl_add_u64 v[6:7], v[0:1], 0, v[6:7]
	global_store_short v[6:7], v20, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[2:3]
	s_cbranch_execz .LBB0_26
.LBB0_55:
	v_or_b32_e32 v6, v17, v25
	v_mov_b32_e32 v7, 0
	v_lshl_add_u64 v[6:7], v[0:1], 0, v[6:7]
	global_store_short v[6:7], v19, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[4:5]
	s_cbranch_execz .LBB0_27
.LBB0_56:
	v_or_b32_e32 v6, v24, v25
	v_mov_b32_e32 v7, 0
	v_lshl_add_u64 v[6:7], v[0:1], 0, v[6:7]
	global_store_short v[6:7], v18, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execz .LBB0_28
.LBB0_57:
	global_store_short v[4:5], v21, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[0:1]
	s_cbranch_execz .LBB0_29
.LBB0_58:
	v_or_b32_e32 v4, v16, v23
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[0:1], 0, v[4:5]
	global_store_short v[4:5], v20, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[2:3]
	s_cbranch_execz .LBB0_30
.LBB0_59:
	v_or_b32_e32 v4, v17, v23
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[0:1], 0, v[4:5]
	global_store_short v[4:5], v19, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[4:5]
	s_cbranch_execz .LBB0_31
.LBB0_60:
	v_or_b32_e32 v4, v24, v23
	v_mov_b32_e32 v5, 0
	v_lshl_add_u64 v[4:5], v[0:1], 0, v[4:5]
	global_store_short v[4:5], v18, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execz .LBB0_32
.LBB0_61:
	global_store_short v[2:3], v21, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[6:7], s[0:1]
	s_cbranch_execz .LBB0_33
.LBB0_62:
	v_or_b32_e32 v2, v16, v22
	v_mov_b32_e32 v3, 0
	v_lshl_add_u64 v[2:3], v[0:1], 0, v[2:3]
	global_store_short v[2:3], v20, off
	s_or_b64 exec, exec, s[6:7]
	s_and_saveexec_b64 s[0:1], s[2:3]
	s_cbranch_execz .LBB0_34
.LBB0_63:
	v_or_b32_e32 v2, v17, v22
	v_mov_b32_e32 v3, 0
	v_lshl_add_u64 v[2:3], v[0:1], 0, v[2:3]
	global_store_short v[2:3], v19, off
	s_or_b64 exec, exec, s[0:1]
	s_and_saveexec_b64 s[0:1], s[4:5]
	s_cbranch_execz .LBB0_35
.LBB0_64:
	v_or_b32_e32 v2, v24, v22
	v_mov_b32_e32 v3, 0
	v_lshl_add_u64 v[0:1], v[0:1], 0, v[2:3]
	global_store_short v[0:1], v18, off
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel group_layouts
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
		.amdhsa_next_free_vgpr 38
		.amdhsa_next_free_sgpr 9
		.amdhsa_accum_offset 40
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
	.size	group_layouts, .Lfunc_end0-group_layouts

	.set group_layouts.num_vgpr, 38
	.set group_layouts.num_agpr, 0
	.set group_layouts.numbered_sgpr, 9
	.set group_layouts.num_named_barrier, 0
	.set group_layouts.private_seg_size, 0
	.set group_layouts.uses_vcc, 1
	.set group_layouts.uses_flat_scratch, 0
	.set group_layouts.has_dyn_sized_stack, 0
	.set group_layouts.has_recursion, 0
	.set group_layouts.has_indirect_call, 0
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
      - .address_space:  global
        .name:           h
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .name:           c.len
        .offset:         16
        .size:           8
        .value_kind:     by_value
      - .name:           h.len
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
    .name:           group_layouts
    .private_segment_fixed_size: 0
    .sgpr_count:     15
    .sgpr_spill_count: 0
    .symbol:         group_layouts.kd
    .uses_dynamic_stack: false
    .vgpr_count:     38
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
