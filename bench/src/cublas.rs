//! The cuBLAS baseline: `cublasGemmEx` with bf16 inputs and f32 compute on a stream of its
//! own, timed with CUDA events.
//!
//! The operands are kosmos-runtime buffers passed by device address: cudarc retains the same
//! primary context kosmos-runtime uses, so the addresses are valid here too.

use crate::{BenchError, Result};
use cudarc::cublas::{CudaBlas, result, sys};
use cudarc::driver::{CudaContext, CudaStream, sys as drv};
use std::ffi::c_void;
use std::sync::Arc;

/// Element type of the product `c`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OutType {
    F32,
    Bf16,
}

impl OutType {
    fn cuda(self) -> sys::cudaDataType {
        match self {
            OutType::F32 => sys::cudaDataType::CUDA_R_32F,
            OutType::Bf16 => sys::cudaDataType::CUDA_R_16BF,
        }
    }
}

/// A cuBLAS handle bound to its own stream on one GPU.
pub struct Cublas {
    stream: Arc<CudaStream>,
    blas: CudaBlas,
}

/// Row-major `c[m,n] = op(a) op(b)` by device address: `a` stored `m x k`, or `k x m` when
/// `a_t` (A^T); `b` stored `k x n`, or `n x k` when `b_t`.
#[derive(Copy, Clone, Debug)]
pub struct GemmArgs {
    pub a: u64,
    pub b: u64,
    pub c: u64,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a_t: bool,
    pub b_t: bool,
    pub out: OutType,
}

fn driver(op: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> BenchError {
    move |source| BenchError::Driver { op, source }
}

fn cublas(op: &'static str) -> impl FnOnce(result::CublasError) -> BenchError {
    move |source| BenchError::Cublas { op, source }
}

impl Cublas {
    /// Opens cuBLAS on CUDA device `ordinal`; an error (not a panic) when libcublas is absent.
    pub fn new(ordinal: usize) -> Result<Cublas> {
        // cudarc panics on the first call into a library it cannot load: look first.
        if !unsafe { sys::is_culib_present() } {
            return Err(BenchError::NoCublas);
        }
        let ctx = CudaContext::new(ordinal).map_err(driver("context"))?;
        let stream = ctx.new_stream().map_err(driver("stream creation"))?;
        let blas = CudaBlas::new(stream.clone()).map_err(cublas("handle creation"))?;
        Ok(Cublas { stream, blas })
    }

    /// Queues one GEMM. Row-major `c = op(a) op(b)` is column-major `c^T = op(b)^T op(a)^T`:
    /// cuBLAS gets `b` as its first operand and the dimensions swapped, nothing is transposed
    /// in memory. A row-major operand read column-major is its own transpose, so an operand
    /// stored as itself is `N` to cuBLAS and one stored transposed is `T`.
    pub fn gemm(&self, g: GemmArgs) -> Result<()> {
        let dim = |x: usize, what: &str| {
            i32::try_from(x).map_err(|_| BenchError::Invalid {
                what: format!("cuBLAS GEMM dimension {what}"),
                detail: format!("{x} does not fit an int"),
            })
        };
        let (m, n, k) = (dim(g.m, "m")?, dim(g.n, "n")?, dim(g.k, "k")?);
        let (alpha, beta) = (1f32, 0f32);
        let op = |t: bool| {
            if t {
                sys::cublasOperation_t::CUBLAS_OP_T
            } else {
                sys::cublasOperation_t::CUBLAS_OP_N
            }
        };
        let ldb = if g.b_t { k } else { n };
        let lda = if g.a_t { m } else { k };
        unsafe {
            result::gemm_ex(
                *self.blas.handle(),
                op(g.b_t),
                op(g.a_t),
                n,
                m,
                k,
                (&alpha as *const f32).cast::<c_void>(),
                g.b as *const c_void,
                sys::cudaDataType::CUDA_R_16BF,
                ldb,
                g.a as *const c_void,
                sys::cudaDataType::CUDA_R_16BF,
                lda,
                (&beta as *const f32).cast::<c_void>(),
                g.c as *mut c_void,
                g.out.cuda(),
                n,
                sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        }
        .map_err(cublas("gemm_ex"))
    }

    /// Milliseconds `f` takes on this stream, between two events.
    pub fn time(&self, f: impl FnOnce() -> Result<()>) -> Result<f64> {
        let flags = Some(drv::CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.stream.record_event(flags).map_err(driver("event"))?;
        f()?;
        let end = self.stream.record_event(flags).map_err(driver("event"))?;
        end.synchronize().map_err(driver("event synchronize"))?;
        Ok(start.elapsed_ms(&end).map_err(driver("event timing"))? as f64)
    }

    /// Waits for everything queued on this stream.
    pub fn synchronize(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(driver("stream synchronize"))
    }
}
