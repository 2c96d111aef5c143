	.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
	.amdhsa_code_object_version 5
	.text
	.globl	warp_specialised
	.p2align	8
	.type	warp_specialised,@function
warp_specialised:
	s_load_dword s0, s[0:1], 0x4
	v_bfe_u32 v1, v0, 10, 10
	v_bfe_u32 v2, v0, 20, 10
	v_and_b32_e32 v0, 0x3ff, v0
	s_waitcnt lgkmcnt(0)
	s_lshr_b32 s1, s0, 16
	v_mad_u32_u24 v1, v2, s1, v1
	s_and_b32 s0, s0, 0xffff
	v_mad_u64_u32 v[32:33], s[0:1], v1, s0, v[0:1]
	s_movk_i32 s0, 0xff
	s_nop 0
	v_cmp_lt_u32_e32 vcc, s0, v32
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_6
	s_load_dword s4, s[2:3], 0x8
	v_mov_b32_e32 v0, 0
	v_mov_b32_e32 v1, 0
	v_mov_b32_e32 v2, 0
	v_mov_b32_e32 v3, 0
	v_mov_b32_e32 v4, 0
	v_mov_b32_e32 v5, 0
	v_mov_b32_e32 v6, 0
	v_mov_b32_e32 v7, 0
	v_mov_b32_e32 v8, 0
	v_mov_b32_e32 v9, 0
	v_mov_b32_e32 v10, 0
	v_mov_b32_e32 v11, 0
	v_mov_b32_e32 v12, 0
	v_mov_b32_e32 v13, 0
	v_mov_b32_e32 v14, 0
	v_mov_b32_e32 v15, 0
	v_mov_b32_e32 v16, 0
	v_mov_b32_e32 v17, 0
	v_mov_b32_e32 v18, 0
	v_mov_b32_e32 v19, 0
	v_mov_b32_e32 v20, 0
	v_mov_b32_e32 v21, 0
	v_mov_b32_e32 v22, 0
	v_mov_b32_e32 v23, 0
	v_mov_b32_e32 v24, 0
	v_mov_b32_e32 v25, 0
	v_mov_b32_e32 v26, 0
	v_mov_b32_e32 v27, 0
	v_mov_b32_e32 v36, 0
	v_mov_b32_e32 v35, 0
	v_mov_b32_e32 v34, 0
	v_mov_b32_e32 v33, 0
	v_mov_b32_e32 v28, 0
	v_mov_b32_e32 v29, 0
	v_mov_b32_e32 v30, 0
	v_mov_b32_e32 v31, 0
	s_branch .LBB0_3
.LBB0_2:
	v_mfma_f32_16x16x32_bf16 v[0:3], v[0:3], v[0:3], v[0:3]
	s_add_i32 s4, s4, -1
	s_cmp_eq_u32 s4, 0
	s_cselect_b64 s[0:1], -1, 0
	s_nop 4
	v_mfma_f32_16x16x32_bf16 v[4:7], v[0:3], v[0:3], v[4:7]
	v_mfma_f32_16x16x32_bf16 v[8:11], v[0:3], v[0:3], v[8:11]
	v_mfma_f32_16x16x32_bf16 v[12:15], v[0:3], v[0:3], v[12:15]
	v_mfma_f32_16x16x32_bf16 v[16:19], v[0:3], v[0:3], v[16:19]
	v_mfma_f32_16x16x32_bf16 v[20:23], v[0:3], v[0:3], v[20:23]
	v_mfma_f32_16x16x32_bf16 v[24:27], v[0:3], v[0:3], v[24:27]
	v_mfma_f32_16x16x32_bf16 v[28:31], v[0:3], v[0:3], v[28:31]
	v_mfma_f32_16x16x32_bf16 v[0:3], v[0:3], v[0:3], v[0:3]
	s_nop 7
	v_mfma_f32_16x16x32_bf16 v[28:31], v[0:3], v[0:3], v[28:31]
	v_mfma_f32_16x16x32_bf16 v[4:7], v[0:3], v[0:3], v[4:7]
	v_mfma_f32_16x16x32_bf16 v[8:11], v[0:3], v[0:3], v[8:11]
	s_nop 5
	v_mov_b32_e32 v33, v31
	v_mov_b32_e32 v34, v30
	v_mov_b32_e32 v35, v29
	v_mfma_f32_16x16x32_bf16 v[12:15], v[0:3], v[0:3], v[12:15]
	v_mov_b32_e32 v36, v28
	v_mfma_f32_16x16x32_bf16 v[16:19], v[0:3], v[0:3], v[16:19]
	v_mfma_f32_16x16x32_bf16 v[20:23], v[0:3], v[0:3], v[20:23]
	v_mfma_f32_16x16x32_bf16 v[24:27], v[0:3], v[0:3], v[24:27]
	s_andn2_b64 vcc, exec, s[0:1]
	s_cbranch_vccz .LBB0_5
.LBB0_3:
	s_waitcnt lgkmcnt(0)
	s_cmp_eq_u32 s4, 0
	s_cbranch_scc0 .LBB0_2
.LBB0_5:
	s_load_dwordx2 s[0:1], s[2:3], 0x0
	v_lshlrev_b32_e32 v28, 5, v32
	v_mov_b32_e32 v29, 0
	v_and_b32_e32 v28, 0xfffff800, v28
	v_lshlrev_b32_e32 v37, 7, v32
	s_waitcnt lgkmcnt(0)
	v_lshl_add_u64 v[30:31], v[28:29], 2, s[0:1]
	v_lshlrev_b32_e32 v28, 2, v32
	v_and_b32_e32 v28, 60, v28
	s_movk_i32 s0, 0x1800
	v_and_or_b32 v28, v37, s0, v28
	v_lshl_add_u64 v[28:29], v[30:31], 0, v[28:29]
	global_store_dword v[28:29], v0, off
	global_store_dword v[28:29], v1, off offset:512
	global_store_dword v[28:29], v2, off offset:1024
	global_store_dword v[28:29], v3, off offset:1536
	global_store_dword v[28:29], v4, off offset:64
	global_store_dword v[28:29], v5, off offset:576
	global_store_dword v[28:29], v6, off offset:1088
	global_store_dword v[28:29], v7, off offset:1600
	global_store_dword v[28:29], v8, off offset:128
	global_store_dword v[28:29], v9, off offset:640
	global_store_dword v[28:29], v10, off offset:1152
	global_store_dword v[28:29], v11, off offset:1664
	global_store_dword v[28:29], v12, off offset:192
	global_store_dword v[28:29], v13, off offset:704
	global_store_dword v[28:29], v14, off offset:1216
	global_store_dword v[28:29], v15, off offset:1728
	global_store_dword v[28:29], v16, off offset:256
	global_store_dword v[28:29], v17, off offset:768
	global_store_dword v[28:29], v18, off offset:1280
	global_store_dword v[28:29], v19, off offset:1792
	global_store_dword v[28:29], v20, off offset:320
	global_store_dword v[28:29], v21, off offset:832
	global_store_dword v[28:29], v22, off offset:1344
	global_store_dword v[28:29], v23, off offset:1856
	global_store_dword v[28:29], v24, off offset:384
	global_store_dword v[28:29], v25, off offset:896
	global_store_dword v[28:29], v26, off offset:1408
	global_store_dword v[28:29], v27, off offset:1920
	global_store_dword v[28:29], v36, off offset:448
	global_store_dword v[28:29], v35, off offset:960
	global_store_dword v[28:29], v34, off offset:1472
	global_store_dword v[28:29], v33, off offset:1984
.LBB0_6:
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel warp_specialised
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 32
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
		.amdhsa_next_free_sgpr 5
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
	.size	warp_specialised, .Lfunc_end0-warp_specialised

	.set warp_specialised.num_vgpr, 38
	.set warp_specialised.num_agpr, 0
	.set warp_specialised.numbered_sgpr, 5
	.set warp_specialised.num_named_barrier, 0
	.set warp_specialised.private_seg_size, 0
	.set warp_specialised.uses_vcc, 1
	.set warp_specialised.uses_flat_scratch, 0
	.set warp_specialised.has_dyn_sized_stack, 0
	.set warp_specialised.has_recursion, 0
	.set warp_specialised.has_indirect_call, 0
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
      - .name:           steps
        .offset:         8
        .size:           4
        .value_kind:     by_value
      - .name:           c.len
        .offset:         16
        .size:           8
        .value_kind:     by_value
      - .address_space:  global
        .name:           bounds_record
        .offset:         24
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 32
    .max_flat_workgroup_size: 384
    .name:           warp_specialised
    .private_segment_fixed_size: 0
    .sgpr_count:     11
    .sgpr_spill_count: 0
    .symbol:         warp_specialised.kd
    .uses_dynamic_stack: false
    .vgpr_count:     38
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx950
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
