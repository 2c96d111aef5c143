	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl	subgroup_shuffle
	.p2align	8
	.type	subgroup_shuffle,@function
subgroup_shuffle:
	s_load_dwordx4 s[4:7], s[2:3], 0x0
	v_and_b32_e32 v1, 0x3ff, v0
	v_lshlrev_b32_e32 v2, 2, v1
	s_load_dword s0, s[0:1], 0x4
	v_bfe_u32 v4, v0, 10, 10
	s_waitcnt lgkmcnt(0)
	global_load_dword v3, v2, s[4:5]
	v_bfe_u32 v0, v0, 20, 10
	s_lshr_b32 s1, s0, 16
	v_mad_u32_u24 v0, v0, s1, v4
	v_mul_lo_u32 v0, v0, s0
	v_add_lshl_u32 v0, v0, v1, 2
	v_and_b32_e32 v0, 0xfc, v0
	s_waitcnt vmcnt(0)
	ds_bpermute_b32 v0, v0, v3 offset:4
	s_waitcnt lgkmcnt(0)
	global_store_dword v2, v0, s[6:7]
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel subgroup_shuffle
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
		.amdhsa_next_free_vgpr 5
		.amdhsa_next_free_sgpr 8
		.amdhsa_accum_offset 8
		.amdhsa_reserve_vcc 0
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
	.size	subgroup_shuffle, .Lfunc_end0-subgroup_shuffle

	.set subgroup_shuffle.num_vgpr, 5
	.set subgroup_shuffle.num_agpr, 0
	.set subgroup_shuffle.numbered_sgpr, 8
	.set subgroup_shuffle.num_named_barrier, 0
	.set subgroup_shuffle.private_seg_size, 0
	.set subgroup_shuffle.uses_vcc, 0
	.set subgroup_shuffle.uses_flat_scratch, 0
	.set subgroup_shuffle.has_dyn_sized_stack, 0
	.set subgroup_shuffle.has_recursion, 0
	.set subgroup_shuffle.has_indirect_call, 0
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
        .name:           out
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .name:           a.len
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
    .max_flat_workgroup_size: 64
    .name:           subgroup_shuffle
    .private_segment_fixed_size: 0
    .sgpr_count:     14
    .sgpr_spill_count: 0
    .symbol:         subgroup_shuffle.kd
    .uses_dynamic_stack: false
    .vgpr_count:     5
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
