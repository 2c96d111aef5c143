	.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
	.amdhsa_code_object_version 5
	.text
	.globl	casts
	.p2align	8
	.type	casts,@function
casts:
	s_load_dwordx4 s[8:11], s[2:3], 0x0
	s_load_dword s5, s[0:1], 0x4
	v_mov_b32_e32 v7, 0
	s_mov_b32 s1, 0x4effffff
	v_bfrev_b32_e32 v4, -2
	s_waitcnt lgkmcnt(0)
	v_mov_b32_e32 v2, s8
	s_and_b32 s0, s5, 0xffff
	s_mul_i32 s4, s4, s0
	v_mov_b32_e32 v3, s9
	v_add_u32_e32 v6, s4, v0
	v_lshl_add_u64 v[0:1], v[6:7], 2, v[2:3]
	global_load_dword v2, v[0:1], off
	s_mov_b32 s0, 0xcf000000
	v_bfrev_b32_e32 v3, 1
	s_mov_b32 s3, 0x437f0000
	v_mov_b32_e32 v6, 0xff
	s_mov_b32 s2, 0
	v_mov_b32_e32 v5, s2
	s_waitcnt vmcnt(0)
	v_cvt_pk_bf16_f32 v8, v2, s0
	v_cvt_i32_f32_e32 v10, v2
	v_cvt_u32_f32_e32 v11, v2
	global_store_dword v7, v2, s[10:11] offset:96
	global_store_short v7, v8, s[10:11]
	v_lshlrev_b32_e32 v8, 16, v8
	v_cmp_gt_f32_e32 vcc, v2, v8
	global_store_dword v7, v8, s[10:11] offset:8
	v_cvt_f16_f32_e32 v9, v2
	v_cndmask_b32_e64 v8, 0, 1, vcc
	v_cmp_le_f32_e32 vcc, s0, v2
	v_cvt_f64_f32_e32 v[0:1], v2
	global_store_short v7, v9, s[10:11] offset:16
	v_cndmask_b32_e32 v3, v3, v10, vcc
	v_cmp_le_f32_e32 vcc, 0, v2
	v_cvt_f32_f16_e32 v9, v9
	s_nop 0
	v_cndmask_b32_e32 v10, 0, v11, vcc
	v_cmp_nlt_f32_e32 vcc, s1, v2
	s_nop 1
	v_cndmask_b32_e32 v3, v4, v3, vcc
	v_cmp_nlt_f32_e32 vcc, s3, v2
	s_nop 1
	v_cndmask_b32_e32 v4, v6, v10, vcc
	v_cmp_o_f32_e32 vcc, v2, v2
	global_store_byte v7, v4, s[10:11] offset:48
	v_and_b32_e32 v4, 0xffff, v4
	v_cndmask_b32_e32 v2, 0, v3, vcc
	global_store_dwordx3 v7, v[0:2], s[10:11] offset:32
	v_ashrrev_i32_e32 v3, 31, v2
	v_cvt_pk_bf16_f32 v6, v9, s0
	v_cvt_f32_u32_e32 v1, v4
	v_cvt_f32_i32_sdwa v0, sext(v2) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0
	global_store_dwordx4 v7, v[2:5], s[10:11] offset:56
	global_store_short v7, v6, s[10:11] offset:24
	global_store_dword v7, v0, s[10:11] offset:80
	v_cvt_pk_bf16_f32 v0, v1, s0
	global_store_short v7, v2, s[10:11] offset:72
	global_store_short v7, v0, s[10:11] offset:88
	global_store_dword v7, v8, s[10:11] offset:104
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel casts
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
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 12
		.amdhsa_next_free_sgpr 12
		.amdhsa_accum_offset 12
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
	.size	casts, .Lfunc_end0-casts

	.set casts.num_vgpr, 12
	.set casts.num_agpr, 0
	.set casts.numbered_sgpr, 12
	.set casts.num_named_barrier, 0
	.set casts.private_seg_size, 0
	.set casts.uses_vcc, 1
	.set casts.uses_flat_scratch, 0
	.set casts.has_dyn_sized_stack, 0
	.set casts.has_recursion, 0
	.set casts.has_indirect_call, 0
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
        .name:           input
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .name:           out
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .name:           input.len
        .offset:         16
        .size:           8
        .value_kind:     by_value
      - .name:           out.len
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
    .max_flat_workgroup_size: 256
    .name:           casts
    .private_segment_fixed_size: 0
    .sgpr_count:     18
    .sgpr_spill_count: 0
    .symbol:         casts.kd
    .uses_dynamic_stack: false
    .vgpr_count:     12
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx950
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
