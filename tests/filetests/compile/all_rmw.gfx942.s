	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl	all_rmw
	.p2align	8
	.type	all_rmw,@function
all_rmw:
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_mov_b64 s[2:3], exec
	v_mbcnt_lo_u32_b32 v0, s2, 0
	v_mbcnt_hi_u32_b32 v1, s3, v0
	v_cmp_eq_u32_e32 vcc, 0, v1
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_2
	s_bcnt1_i32_b64 s2, s[2:3]
	s_mul_i32 s2, s2, 3
	v_mov_b32_e32 v0, 0
	v_mov_b32_e32 v2, s2
	buffer_wbl2 sc1
	s_waitcnt lgkmcnt(0)
	global_atomic_add v2, v0, v2, s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_2:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s0, v2
	v_mov_b32_e32 v0, 0
	s_nop 0
	v_mad_u32_u24 v1, v1, 3, s0
	s_waitcnt lgkmcnt(0)
	global_store_dword v0, v1, s[6:7]
	v_mbcnt_lo_u32_b32 v1, exec_lo, 0
	v_mbcnt_hi_u32_b32 v1, exec_hi, v1
	v_cmp_eq_u32_e32 vcc, 0, v1
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_4
	v_mov_b32_e32 v1, 3
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_smin v1, v0, v1, s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_4:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s0, v1
	v_bfrev_b32_e32 v1, -2
	v_cndmask_b32_e32 v1, 3, v1, vcc
	v_min_i32_e32 v1, s0, v1
	global_store_dword v0, v1, s[6:7] offset:8
	v_mbcnt_lo_u32_b32 v0, exec_lo, 0
	v_mbcnt_hi_u32_b32 v0, exec_hi, v0
	v_cmp_eq_u32_e32 vcc, 0, v0
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_6
	v_mov_b32_e32 v0, 0
	v_mov_b32_e32 v1, 3
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_smax v0, v0, v1, s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_6:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s0, v0
	v_bfrev_b32_e32 v0, 1
	v_cndmask_b32_e32 v0, 3, v0, vcc
	v_max_i32_e32 v2, s0, v0
	v_mov_b32_e32 v0, 0
	v_mov_b32_e32 v1, 3
	global_store_dword v0, v2, s[6:7] offset:16
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_swap v2, v0, v1, s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
	v_mbcnt_lo_u32_b32 v3, exec_lo, 0
	v_mbcnt_hi_u32_b32 v3, exec_hi, v3
	v_cmp_eq_u32_e32 vcc, 0, v3
	global_store_dword v0, v2, s[6:7] offset:24
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_8
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_and v2, v0, v1, s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_8:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s0, v2
	v_cndmask_b32_e64 v1, 3, -1, vcc
	s_nop 0
	v_and_b32_e32 v1, s0, v1
	global_store_dword v0, v1, s[6:7] offset:32
	v_mbcnt_lo_u32_b32 v0, exec_lo, 0
	v_mbcnt_hi_u32_b32 v0, exec_hi, v0
	v_cmp_eq_u32_e32 vcc, 0, v0
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_10
	v_mov_b32_e32 v0, 0
	v_mov_b32_e32 v1, 3
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_or v0, v0, v1, s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_10:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s2, v0
	v_cndmask_b32_e64 v0, 3, 0, vcc
	s_mov_b64 s[0:1], exec
	v_or_b32_e32 v1, s2, v0
	v_mov_b32_e32 v0, 0
	global_store_dword v0, v1, s[6:7] offset:40
	v_mbcnt_lo_u32_b32 v1, s0, 0
	v_mbcnt_hi_u32_b32 v1, s1, v1
	v_cmp_eq_u32_e32 vcc, 0, v1
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_12
	s_bcnt1_i32_b64 s0, s[0:1]
	s_mul_i32 s0, s0, 3
	v_mov_b32_e32 v2, s0
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_add v2, v0, v2, s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_12:
	s_or_b64 exec, exec, s[2:3]
	v_readfirstlane_b32 s0, v2
	s_nop 1
	v_mad_u32_u24 v1, v1, 3, s0
	global_store_dword v0, v1, s[6:7] offset:48
	v_mbcnt_lo_u32_b32 v0, exec_lo, 0
	v_mbcnt_hi_u32_b32 v0, exec_hi, v0
	v_cmp_eq_u32_e32 vcc, 0, v0
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_14
	v_mov_b32_e32 v0, 0
	v_mov_b32_e32 v1, 3
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_umin v0, v0, v1, s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_14:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s0, v0
	v_cndmask_b32_e64 v0, 3, -1, vcc
	s_nop 0
	v_min_u32_e32 v1, s0, v0
	v_mov_b32_e32 v0, 0
	global_store_dword v0, v1, s[6:7] offset:56
	v_mbcnt_lo_u32_b32 v1, exec_lo, 0
	v_mbcnt_hi_u32_b32 v1, exec_hi, v1
	v_cmp_eq_u32_e32 vcc, 0, v1
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_16
	v_mov_b32_e32 v1, 3
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_umax v1, v0, v1, s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_16:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s0, v1
	v_cndmask_b32_e64 v2, 3, 0, vcc
	v_mov_b32_e32 v1, 3
	v_max_u32_e32 v2, s0, v2
	global_store_dword v0, v2, s[6:7] offset:64
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_swap v2, v0, v1, s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
	v_mbcnt_lo_u32_b32 v3, exec_lo, 0
	v_mbcnt_hi_u32_b32 v3, exec_hi, v3
	v_cmp_eq_u32_e32 vcc, 0, v3
	global_store_dword v0, v2, s[6:7] offset:72
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_18
	v_mov_b32_e32 v0, 0
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_and v0, v0, v1, s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_18:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s0, v0
	v_cndmask_b32_e64 v0, 3, -1, vcc
	s_nop 0
	v_and_b32_e32 v1, s0, v0
	v_mov_b32_e32 v0, 0
	global_store_dword v0, v1, s[6:7] offset:80
	v_mbcnt_lo_u32_b32 v1, exec_lo, 0
	v_mbcnt_hi_u32_b32 v1, exec_hi, v1
	v_cmp_eq_u32_e32 vcc, 0, v1
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_20
	v_mov_b32_e32 v1, 3
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_or v1, v0, v1, s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_20:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s2, v1
	v_cndmask_b32_e64 v1, 3, 0, vcc
	s_mov_b64 s[0:1], exec
	v_or_b32_e32 v1, s2, v1
	global_store_dword v0, v1, s[6:7] offset:88
	v_mbcnt_lo_u32_b32 v0, s0, 0
	v_mbcnt_hi_u32_b32 v2, s1, v0
	v_cmp_eq_u32_e32 vcc, 0, v2
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_22
	s_bcnt1_i32_b64 s0, s[0:1]
	s_mul_i32 s0, s0, 3
	v_mov_b32_e32 v0, s0
	v_mov_b32_e32 v1, 0
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_add_x2 v[0:1], v1, v[0:1], s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_22:
	s_or_b64 exec, exec, s[2:3]
	v_readfirstlane_b32 s0, v1
	v_readfirstlane_b32 s1, v0
	s_nop 0
	v_mov_b32_e32 v1, s0
	v_mov_b32_e32 v0, s1
	v_mad_u64_u32 v[0:1], s[0:1], v2, 3, v[0:1]
	v_mov_b32_e32 v2, 0
	global_store_dwordx2 v2, v[0:1], s[6:7] offset:96
	v_mbcnt_lo_u32_b32 v0, exec_lo, 0
	v_mbcnt_hi_u32_b32 v0, exec_hi, v0
	v_cmp_eq_u32_e32 vcc, 0, v0
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_24
	v_mov_b64_e32 v[0:1], 3
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_smin_x2 v[0:1], v2, v[0:1], s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_24:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s0, v0
	v_bfrev_b32_e32 v0, -2
	v_readfirstlane_b32 s1, v1
	v_cndmask_b32_e32 v1, 0, v0, vcc
	v_cndmask_b32_e64 v0, 3, -1, vcc
	v_mov_b32_e32 v3, s1
	v_cmp_lt_i64_e32 vcc, s[0:1], v[0:1]
	s_nop 1
	v_cndmask_b32_e32 v1, v1, v3, vcc
	v_mov_b32_e32 v3, s0
	v_cndmask_b32_e32 v0, v0, v3, vcc
	global_store_dwordx2 v2, v[0:1], s[6:7] offset:104
	v_mbcnt_lo_u32_b32 v0, exec_lo, 0
	v_mbcnt_hi_u32_b32 v0, exec_hi, v0
	v_cmp_eq_u32_e32 vcc, 0, v0
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_26
	v_mov_b32_e32 v2, 0
	v_mov_b64_e32 v[0:1], 3
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_smax_x2 v[0:1], v2, v[0:1], s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_26:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s0, v0
	v_bfrev_b32_e32 v0, 1
	v_readfirstlane_b32 s1, v1
	v_cndmask_b32_e32 v1, 0, v0, vcc
	v_cndmask_b32_e64 v0, 3, 0, vcc
	v_mov_b32_e32 v2, s1
	v_cmp_gt_i64_e32 vcc, s[0:1], v[0:1]
	v_mov_b32_e32 v4, 0
	v_mbcnt_lo_u32_b32 v5, exec_lo, 0
	v_cndmask_b32_e32 v1, v1, v2, vcc
	v_mov_b32_e32 v2, s0
	v_cndmask_b32_e32 v0, v0, v2, vcc
	global_store_dwordx2 v4, v[0:1], s[6:7] offset:112
	v_mov_b64_e32 v[0:1], 3
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_swap_x2 v[2:3], v4, v[0:1], s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
	v_mbcnt_hi_u32_b32 v5, exec_hi, v5
	v_cmp_eq_u32_e32 vcc, 0, v5
	global_store_dwordx2 v4, v[2:3], s[6:7] offset:120
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_28
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_and_x2 v[2:3], v4, v[0:1], s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_28:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s0, v3
	v_readfirstlane_b32 s1, v2
	v_cndmask_b32_e64 v0, 0, -1, vcc
	v_cndmask_b32_e64 v2, 3, -1, vcc
	v_and_b32_e32 v1, s0, v0
	v_and_b32_e32 v0, s1, v2
	global_store_dwordx2 v4, v[0:1], s[6:7] offset:128
	v_mbcnt_lo_u32_b32 v0, exec_lo, 0
	v_mbcnt_hi_u32_b32 v0, exec_hi, v0
	v_cmp_eq_u32_e32 vcc, 0, v0
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_30
	v_mov_b32_e32 v2, 0
	v_mov_b64_e32 v[0:1], 3
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_or_x2 v[0:1], v2, v[0:1], s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_30:
	s_or_b64 exec, exec, s[0:1]
	s_mov_b64 s[0:1], exec
	v_readfirstlane_b32 s3, v0
	v_cndmask_b32_e64 v0, 3, 0, vcc
	v_readfirstlane_b32 s2, v1
	v_or_b32_e32 v2, s3, v0
	v_mbcnt_lo_u32_b32 v0, s0, 0
	v_mbcnt_hi_u32_b32 v4, s1, v0
	v_mov_b32_e32 v1, 0
	v_mov_b32_e32 v3, s2
	v_cmp_eq_u32_e32 vcc, 0, v4
	global_store_dwordx2 v1, v[2:3], s[6:7] offset:136
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_32
	s_bcnt1_i32_b64 s0, s[0:1]
	s_mul_i32 s0, s0, 3
	v_mov_b32_e32 v0, s0
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_add_x2 v[2:3], v1, v[0:1], s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_32:
	s_or_b64 exec, exec, s[2:3]
	v_readfirstlane_b32 s0, v3
	v_readfirstlane_b32 s1, v2
	v_mbcnt_lo_u32_b32 v0, exec_lo, 0
	v_mov_b32_e32 v3, s0
	v_mov_b32_e32 v2, s1
	v_mbcnt_hi_u32_b32 v0, exec_hi, v0
	v_mad_u64_u32 v[2:3], s[0:1], v4, 3, v[2:3]
	v_cmp_eq_u32_e32 vcc, 0, v0
	global_store_dwordx2 v1, v[2:3], s[6:7] offset:144
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_34
	v_mov_b32_e32 v2, 0
	v_mov_b64_e32 v[0:1], 3
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_umin_x2 v[0:1], v2, v[0:1], s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_34:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s1, v1
	v_readfirstlane_b32 s0, v0
	v_cndmask_b32_e64 v1, 0, -1, vcc
	v_cndmask_b32_e64 v0, 3, -1, vcc
	v_mov_b32_e32 v2, s1
	v_cmp_lt_u64_e32 vcc, s[0:1], v[0:1]
	s_nop 1
	v_cndmask_b32_e32 v3, v1, v2, vcc
	v_mov_b32_e32 v1, s0
	v_cndmask_b32_e32 v2, v0, v1, vcc
	v_mbcnt_lo_u32_b32 v0, exec_lo, 0
	v_mbcnt_hi_u32_b32 v0, exec_hi, v0
	v_mov_b32_e32 v1, 0
	v_cmp_eq_u32_e32 vcc, 0, v0
	global_store_dwordx2 v1, v[2:3], s[6:7] offset:152
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_36
	v_mov_b64_e32 v[2:3], 3
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_umax_x2 v[2:3], v1, v[2:3], s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_36:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s1, v3
	v_readfirstlane_b32 s0, v2
	v_cndmask_b32_e64 v0, 3, 0, vcc
	s_nop 0
	v_mov_b32_e32 v2, s0
	v_cmp_gt_u64_e32 vcc, s[0:1], v[0:1]
	s_nop 1
	v_cndmask_b32_e32 v2, v0, v2, vcc
	v_mov_b32_e32 v0, s1
	v_cndmask_b32_e32 v3, 0, v0, vcc
	global_store_dwordx2 v1, v[2:3], s[6:7] offset:160
	v_mov_b64_e32 v[2:3], 3
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_swap_x2 v[4:5], v1, v[2:3], s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
	v_mbcnt_lo_u32_b32 v0, exec_lo, 0
	v_mbcnt_hi_u32_b32 v0, exec_hi, v0
	v_cmp_eq_u32_e32 vcc, 0, v0
	global_store_dwordx2 v1, v[4:5], s[6:7] offset:168
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_38
	v_mov_b32_e32 v0, 0
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_and_x2 v[0:1], v0, v[2:3], s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_38:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s0, v1
	v_readfirstlane_b32 s1, v0
	v_cndmask_b32_e64 v0, 0, -1, vcc
	v_cndmask_b32_e64 v2, 3, -1, vcc
	v_and_b32_e32 v1, s0, v0
	v_and_b32_e32 v0, s1, v2
	v_mov_b32_e32 v2, 0
	global_store_dwordx2 v2, v[0:1], s[6:7] offset:176
	v_mbcnt_lo_u32_b32 v0, exec_lo, 0
	v_mbcnt_hi_u32_b32 v0, exec_hi, v0
	v_cmp_eq_u32_e32 vcc, 0, v0
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_40
	v_mov_b64_e32 v[0:1], 3
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	global_atomic_or_x2 v[0:1], v2, v[0:1], s[4:5] sc0
	s_waitcnt vmcnt(0)
	buffer_inv sc1
.LBB0_40:
	s_or_b64 exec, exec, s[0:1]
	v_readfirstlane_b32 s2, v1
	v_readfirstlane_b32 s3, v0
	v_cndmask_b32_e64 v0, 3, 0, vcc
	s_mov_b64 s[0:1], exec
	v_mov_b32_e32 v1, s2
	v_or_b32_e32 v0, s3, v0
	global_store_dwordx2 v2, v[0:1], s[6:7] offset:184
	v_mbcnt_lo_u32_b32 v0, s0, 0
	v_mbcnt_hi_u32_b32 v2, s1, v0
	v_cmp_eq_u32_e32 vcc, 0, v2
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_44
	v_mov_b32_e32 v3, 0
	global_load_dword v1, v3, s[4:5]
	s_bcnt1_i32_b64 s0, s[0:1]
	v_cvt_f32_ubyte0_e32 v0, s0
	v_mul_f32_e32 v4, 0x3fc00000, v0
	s_mov_b64 s[8:9], 0
.LBB0_42:
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v0, v1, v4
	global_atomic_cmpswap v0, v3, v[0:1], s[4:5] sc0 sc1
	s_waitcnt vmcnt(0)
	v_cmp_eq_u32_e64 s[0:1], v0, v1
	s_or_b64 s[8:9], s[0:1], s[8:9]
	v_mov_b32_e32 v1, v0
	s_andn2_b64 exec, exec, s[8:9]
	s_cbranch_execnz .LBB0_42
	s_or_b64 exec, exec, s[8:9]
.LBB0_44:
	s_or_b64 exec, exec, s[2:3]
	v_readfirstlane_b32 s2, v0
	v_cvt_f32_ubyte0_e32 v0, v2
	v_mul_f32_e32 v0, 0x3fc00000, v0
	v_add_f32_e32 v0, s2, v0
	v_mov_b32_e32 v1, s2
	v_cndmask_b32_e32 v0, v0, v1, vcc
	v_mov_b32_e32 v1, 0
	global_store_dword v1, v0, s[6:7] offset:192
	v_mov_b32_e32 v0, 0x3fc00000
	global_atomic_swap v2, v1, v0, s[4:5] sc0
	s_mov_b64 s[0:1], exec
	v_mbcnt_lo_u32_b32 v0, s0, 0
	v_mbcnt_hi_u32_b32 v0, s1, v0
	v_cmp_eq_u32_e32 vcc, 0, v0
	s_waitcnt vmcnt(0)
	global_store_dword v1, v2, s[6:7] offset:200
	s_and_saveexec_b64 s[2:3], vcc
	s_bcnt1_i32_b64 s0, s[0:1]
	s_mul_i32 s0, s0, 7
	v_mov_b32_e32 v2, s0
	ds_add_rtn_u32 v2, v1, v2
	s_or_b64 exec, exec, s[2:3]
	s_waitcnt lgkmcnt(0)
	v_readfirstlane_b32 s0, v2
	v_mov_b32_e32 v2, 1
	v_mov_b32_e32 v3, v1
	v_mad_u32_u24 v0, v0, 7, s0
	global_store_dword v1, v0, s[6:7] offset:208
	v_mov_b32_e32 v0, 2
	buffer_wbl2 sc0 sc1
	s_waitcnt vmcnt(0)
	global_atomic_cmpswap_x2 v[2:3], v1, v[0:3], s[4:5] sc0 sc1
	s_waitcnt vmcnt(0)
	buffer_inv sc0 sc1
	global_store_dwordx2 v1, v[2:3], s[6:7] offset:216
	v_mov_b32_e32 v0, 7
	ds_cmpst_rtn_b32 v2, v1, v0, v0
	s_waitcnt lgkmcnt(0)
	global_store_dword v1, v2, s[6:7] offset:224
	ds_read_b32 v2, v1
	s_waitcnt lgkmcnt(0)
	global_store_dword v1, v2, s[6:7] offset:232
	ds_write_b32 v1, v0
	s_waitcnt lgkmcnt(0)
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	buffer_wbl2 sc0 sc1
	buffer_inv sc0 sc1
	buffer_wbl2 sc1
	buffer_inv sc1
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel all_rmw
		.amdhsa_group_segment_fixed_size 256
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 40
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_dispatch_ptr 0
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
		.amdhsa_next_free_vgpr 6
		.amdhsa_next_free_sgpr 10
		.amdhsa_accum_offset 8
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
	.size	all_rmw, .Lfunc_end0-all_rmw

	.set all_rmw.num_vgpr, 6
	.set all_rmw.num_agpr, 0
	.set all_rmw.numbered_sgpr, 10
	.set all_rmw.num_named_barrier, 0
	.set all_rmw.private_seg_size, 0
	.set all_rmw.uses_vcc, 1
	.set all_rmw.uses_flat_scratch, 0
	.set all_rmw.has_dyn_sized_stack, 0
	.set all_rmw.has_recursion, 0
	.set all_rmw.has_indirect_call, 0
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
        .name:           p
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .name:           out
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .name:           p.len
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
    .group_segment_fixed_size: 256
    .kernarg_segment_align: 8
    .kernarg_segment_size: 40
    .max_flat_workgroup_size: 128
    .name:           all_rmw
    .private_segment_fixed_size: 0
    .sgpr_count:     16
    .sgpr_spill_count: 0
    .symbol:         all_rmw.kd
    .uses_dynamic_stack: false
    .vgpr_count:     6
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
