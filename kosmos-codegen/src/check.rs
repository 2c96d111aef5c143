//! Static checks of compiled binaries with external tools: `ptxas -arch=sm_90a -v` assembles
//! PTX and reports registers and spills; `llvm-readelf-22 --notes` and `llvm-objdump-22 -d`
//! read HSACO code objects. `cargo xtask setup` installs all three.
//!
//! Every failure is an [`CheckError`] value; one from a tool carries a command line that
//! reproduces it (the input file is kept for it).

use crate::TargetKind;
use crate::tools::{IoError, Scratch, ToolFailure, llvm_tool};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What can go wrong while checking a binary.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The tool is not installed where we look.
    #[error("{tool} not found ({searched}): run `cargo xtask setup`")]
    NotFound {
        tool: &'static str,
        searched: String,
    },
    /// The tool failed, could not start, or printed output we cannot read.
    #[error(transparent)]
    Tool(#[from] ToolFailure),
    #[error(transparent)]
    Io(#[from] IoError),
}

/// ptxas: `KOSMOS_PTXAS`, else `ptxas` on `PATH`, else the `nvidia-cuda-nvcc` wheel that
/// `cargo xtask setup` installs under the workspace's `target/tools/cuda-nvcc`. Looked up once
/// per process.
pub fn ptxas_path() -> Result<PathBuf, CheckError> {
    static PTXAS: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PTXAS
        .get_or_init(find_ptxas)
        .clone()
        .map_err(|searched| CheckError::NotFound {
            tool: "ptxas",
            searched,
        })
}

fn find_ptxas() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("KOSMOS_PTXAS").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("KOSMOS_PTXAS={} is not a file", p.display()))
        };
    }
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .map(|dir| dir.join("ptxas"))
        .find(|p| p.is_file());
    if let Some(p) = on_path {
        return Ok(p);
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."))
        .join("target/tools/cuda-nvcc");
    // The wheel puts it at nvidia/cu13/bin (13.x) or nvidia/cuda_nvcc/bin (12.x).
    let in_venv = venv
        .join("lib")
        .read_dir()
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|python| {
            ["cu13", "cuda_nvcc"].map(|sub| {
                python
                    .path()
                    .join("site-packages/nvidia")
                    .join(sub)
                    .join("bin/ptxas")
            })
        })
        .find(|p| p.is_file());
    in_venv.ok_or_else(|| {
        format!(
            "KOSMOS_PTXAS unset, none on PATH, none under {}",
            venv.display()
        )
    })
}

/// What `ptxas -v` says about one entry function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxasKernel {
    pub name: String,
    pub registers: u32,
    pub stack_frame_bytes: u64,
    pub spill_store_bytes: u64,
    pub spill_load_bytes: u64,
}

impl PtxasKernel {
    /// Bytes spilled: stores plus loads.
    pub fn spill_bytes(&self) -> u64 {
        self.spill_store_bytes + self.spill_load_bytes
    }
}

/// The result of assembling PTX: one entry per kernel, in ptxas' order, and its full output.
#[derive(Clone, Debug)]
pub struct PtxasReport {
    pub kernels: Vec<PtxasKernel>,
    /// ptxas' stdout and stderr (the `-v` lines).
    pub output: String,
}

impl PtxasReport {
    pub fn kernel(&self, name: &str) -> Option<&PtxasKernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// ptxas' "Potential Performance Loss" lines: instructions it compiled differently from
    /// what the PTX asked, such as a `setmaxnreg` it ignored (C7508, no register count at
    /// entry) or wgmmas it serialized.
    pub fn performance_losses(&self) -> Vec<&str> {
        self.output
            .lines()
            .filter(|l| l.contains("Potential Performance Loss"))
            .collect()
    }

    fn parse(output: &str) -> Result<Vec<PtxasKernel>, String> {
        let mut kernels: Vec<PtxasKernel> = Vec::new();
        for line in output.lines() {
            let line = line.trim();
            let info = line.strip_prefix("ptxas info    : ").unwrap_or(line);
            if let Some(rest) = info.strip_prefix("Compiling entry function '") {
                let name = rest.split('\'').next().unwrap_or_default();
                kernels.push(PtxasKernel {
                    name: name.to_string(),
                    registers: 0,
                    stack_frame_bytes: 0,
                    spill_store_bytes: 0,
                    spill_load_bytes: 0,
                });
                continue;
            }
            let Some(current) = kernels.last_mut() else {
                continue;
            };
            if info.contains("bytes spill stores") {
                // `0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads`
                for part in info.split(',') {
                    let n = leading_number(part)
                        .ok_or_else(|| format!("cannot read `{line}` ({})", current.name))?;
                    if part.contains("stack frame") {
                        current.stack_frame_bytes = n;
                    } else if part.contains("spill stores") {
                        current.spill_store_bytes = n;
                    } else if part.contains("spill loads") {
                        current.spill_load_bytes = n;
                    }
                }
            } else if let Some(rest) = info.strip_prefix("Used ") {
                current.registers = leading_number(rest)
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| format!("cannot read `{line}` ({})", current.name))?;
            }
        }
        Ok(kernels)
    }
}

fn leading_number(s: &str) -> Option<u64> {
    s.split_whitespace().next()?.parse().ok()
}

/// Assembles `ptx` with `ptxas -arch=sm_90a -v`; the report lists every entry function.
pub fn assemble_ptx(ptx: &str) -> Result<PtxasReport, CheckError> {
    let ptxas = ptxas_path()?;
    let mut scratch = Scratch::new()?;
    let src = scratch.write("module.ptx", ptx.as_bytes())?;
    let args: Vec<OsString> = vec![
        "-arch=sm_90a".into(),
        "-v".into(),
        "-o".into(),
        scratch.path.join("module.cubin").into(),
        src.into(),
    ];
    let entries = ptx
        .lines()
        .filter(|l| l.trim_start().starts_with(".entry") || l.contains(" .entry "))
        .count();
    Ok(scratch.run(&ptxas, &args, |stdout, stderr| {
        let output = format!("{stdout}{stderr}");
        let kernels = PtxasReport::parse(&output)?;
        if kernels.len() != entries {
            return Err(format!(
                "reported {} entry functions, the PTX has {entries}:\n{output}",
                kernels.len()
            ));
        }
        Ok(PtxasReport { kernels, output })
    })?)
}

/// The text of one `.entry` function of `ptx`, up to the next `.entry`.
pub fn ptx_entry<'a>(ptx: &'a str, name: &str) -> Option<&'a str> {
    let start = ptx.find(&format!(".entry {name}("))?;
    let rest = &ptx[start..];
    let end = rest[1..].find(".entry ").map_or(rest.len(), |i| i + 1);
    Some(&rest[..end])
}

/// `llvm-readelf-22 --notes` of an HSACO code object: its AMDGPU metadata as YAML.
pub fn hsaco_notes(hsaco: &[u8]) -> Result<String, CheckError> {
    read_notes(hsaco, |notes| Ok(notes.to_string()))
}

/// One kernel of an HSACO's metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HsacoKernel {
    pub name: String,
    /// The kernel descriptor's symbol, `<name>.kd`.
    pub symbol: String,
    /// Scratch (private) memory per work-item; 0 when nothing spills or lives on the stack.
    pub private_segment_fixed_size: u64,
    /// Shared (LDS) memory per workgroup.
    pub group_segment_fixed_size: u64,
    pub sgpr_count: u32,
    /// Vector registers per lane: on gfx90a and later (gfx942, gfx950) the total of the
    /// unified file, architectural VGPRs (rounded up to 4) followed by the AGPRs.
    pub vgpr_count: u32,
    /// The AGPRs (accumulation registers) among [`Self::vgpr_count`].
    pub agpr_count: u32,
    pub sgpr_spill_count: u32,
    pub vgpr_spill_count: u32,
}

/// The metadata notes of an HSACO, parsed.
#[derive(Clone, Debug)]
pub struct HsacoSummary {
    /// `amdhsa.target`, e.g. `amdgcn-amd-amdhsa--gfx942`.
    pub target: String,
    pub kernels: Vec<HsacoKernel>,
    /// The notes as `llvm-readelf-22 --notes` printed them.
    pub notes: String,
}

/// Vector registers per lane of one SIMD on gfx942 and gfx950, shared by its waves (CDNA3
/// ISA, 3.6.4: a unified file of VGPRs and AGPRs).
const UNIFIED_VGPRS_PER_SIMD: u32 = 512;
/// The granule in which a wave's vector registers are allocated.
const VGPR_ALLOC_GRANULE: u32 = 8;
/// Waves one SIMD can hold at most, whatever their registers.
const MAX_WAVES_PER_SIMD: u32 = 8;

impl HsacoKernel {
    /// Waves of this kernel that one SIMD of gfx942 or gfx950 holds as far as vector
    /// registers go (LLVM's `getNumWavesPerEUWithNumVGPRs` for these targets).
    pub fn waves_per_simd_by_vgprs(&self) -> u32 {
        let allocated = self.vgpr_count.max(1).div_ceil(VGPR_ALLOC_GRANULE) * VGPR_ALLOC_GRANULE;
        (UNIFIED_VGPRS_PER_SIMD / allocated).min(MAX_WAVES_PER_SIMD)
    }
}

impl HsacoSummary {
    pub fn kernel(&self, name: &str) -> Option<&HsacoKernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The kernel `name` if it is listed with its `<name>.kd` descriptor and uses neither
    /// scratch memory nor spills; else what is wrong with it.
    pub fn clean_kernel(&self, name: &str) -> Result<&HsacoKernel, String> {
        let k = self
            .kernel(name)
            .ok_or_else(|| format!("{name} not in the notes"))?;
        if k.symbol != format!("{name}.kd") {
            return Err(format!("{name}: descriptor symbol {}", k.symbol));
        }
        if k.private_segment_fixed_size != 0 {
            return Err(format!("{name} uses scratch"));
        }
        if (k.sgpr_spill_count, k.vgpr_spill_count) != (0, 0) {
            return Err(format!("{name} spills"));
        }
        Ok(k)
    }

    /// Reads the kernel list and target out of `llvm-readelf --notes` output.
    pub fn parse(notes: &str) -> Result<HsacoSummary, String> {
        // One map of top-level keys per kernel: `  - .key: v` opens one, `    .key: v` adds.
        let mut entries: Vec<Vec<(&str, &str)>> = Vec::new();
        let mut target = None;
        fn key_value(s: &str) -> Option<(&str, &str)> {
            let (k, v) = s.split_once(':')?;
            Some((k, v.trim()))
        }
        for line in notes.lines() {
            if let Some(rest) = line.strip_prefix("amdhsa.target:") {
                target = Some(rest.trim().to_string());
            } else if let Some(rest) = line.strip_prefix("  - .") {
                entries.push(key_value(rest).into_iter().collect());
            } else if let (Some(rest), Some(entry)) =
                (line.strip_prefix("    ."), entries.last_mut())
            {
                entry.extend(key_value(rest));
            }
        }
        let kernels = entries
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                let get = |key: &str| {
                    entry
                        .iter()
                        .find(|(k, _)| *k == key)
                        .map(|(_, v)| *v)
                        .ok_or_else(|| format!("kernel {i} has no .{key}"))
                };
                let num = |key: &str| -> Result<u64, String> {
                    get(key)?
                        .parse()
                        .map_err(|_| format!("kernel {i}: .{key} is not a number"))
                };
                let small = |key: &str| -> Result<u32, String> {
                    u32::try_from(num(key)?).map_err(|_| format!("kernel {i}: .{key} too large"))
                };
                Ok(HsacoKernel {
                    name: get("name")?.to_string(),
                    symbol: get("symbol")?.to_string(),
                    private_segment_fixed_size: num("private_segment_fixed_size")?,
                    group_segment_fixed_size: num("group_segment_fixed_size")?,
                    sgpr_count: small("sgpr_count")?,
                    vgpr_count: small("vgpr_count")?,
                    agpr_count: small("agpr_count")?,
                    sgpr_spill_count: small("sgpr_spill_count")?,
                    vgpr_spill_count: small("vgpr_spill_count")?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(HsacoSummary {
            target: target.ok_or("no amdhsa.target in the notes")?,
            kernels,
            notes: notes.to_string(),
        })
    }
}

/// [`hsaco_notes`], parsed.
pub fn hsaco_summary(hsaco: &[u8]) -> Result<HsacoSummary, CheckError> {
    read_notes(hsaco, HsacoSummary::parse)
}

fn read_notes<T>(
    hsaco: &[u8],
    accept: impl FnOnce(&str) -> Result<T, String>,
) -> Result<T, CheckError> {
    let mut scratch = Scratch::new()?;
    let file = scratch.write("module.hsaco", hsaco)?;
    let args = ["--notes".into(), file.into()];
    Ok(scratch.run(&llvm_tool("llvm-readelf"), &args, |stdout, _| {
        accept(stdout)
    })?)
}

/// `llvm-objdump-22 -d --mcpu=<target>` of an HSACO code object.
pub fn disassemble_hsaco(hsaco: &[u8], target: TargetKind) -> Result<String, CheckError> {
    let mut scratch = Scratch::new()?;
    let file = scratch.write("module.hsaco", hsaco)?;
    let args = ["-d".into(), format!("--mcpu={target}").into(), file.into()];
    Ok(scratch.run(&llvm_tool("llvm-objdump"), &args, |stdout, _| {
        Ok(stdout.to_string())
    })?)
}

/// The disassembly of one function (`<symbol>:` up to the next blank line).
pub fn disassembly_of<'a>(disassembly: &'a str, symbol: &str) -> Option<&'a str> {
    let start = disassembly.find(&format!("<{symbol}>:\n"))?;
    let rest = &disassembly[start..];
    Some(rest.split("\n\n").next().unwrap_or(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ptxas_verbose_output() {
        let output = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'a' for 'sm_90a'
ptxas info    : Function properties for a
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem
ptxas info    : Compiling entry function 'b' for 'sm_90a'
ptxas info    : Function properties for b
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 0 barriers
";
        let kernels = PtxasReport::parse(output).unwrap();
        assert_eq!(
            kernels[0],
            PtxasKernel {
                name: "a".into(),
                registers: 40,
                stack_frame_bytes: 8,
                spill_store_bytes: 4,
                spill_load_bytes: 12,
            }
        );
        assert_eq!(kernels[0].spill_bytes(), 16);
        assert_eq!((kernels[1].name.as_str(), kernels[1].registers), ("b", 10));
    }

    #[test]
    fn reads_hsaco_notes() {
        let notes = "\
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .name:           p
        .offset:         0
    .group_segment_fixed_size: 1024
    .name:           k
    .private_segment_fixed_size: 16
    .sgpr_count:     14
    .sgpr_spill_count: 0
    .symbol:         k.kd
    .vgpr_count:     8
    .vgpr_spill_count: 2
amdhsa.target:   amdgcn-amd-amdhsa--gfx950
";
        let s = HsacoSummary::parse(notes).unwrap();
        assert_eq!(s.target, "amdgcn-amd-amdhsa--gfx950");
        assert_eq!(
            s.kernel("k"),
            Some(&HsacoKernel {
                name: "k".into(),
                symbol: "k.kd".into(),
                private_segment_fixed_size: 16,
                group_segment_fixed_size: 1024,
                sgpr_count: 14,
                vgpr_count: 8,
                agpr_count: 0,
                sgpr_spill_count: 0,
                vgpr_spill_count: 2,
            })
        );
        let waves = |vgpr_count| {
            let k = HsacoKernel {
                vgpr_count,
                ..s.kernels[0].clone()
            };
            k.waves_per_simd_by_vgprs()
        };
        assert_eq!([waves(8), waves(128), waves(250), waves(257)], [8, 4, 2, 1]);
        let missing = notes.replace("    .symbol:         k.kd\n", "");
        assert_eq!(
            HsacoSummary::parse(&missing).unwrap_err(),
            "kernel 0 has no .symbol"
        );
    }

    #[test]
    fn slices_one_function() {
        let ptx = ".visible .entry a(\n  ret;\n}\n.visible .entry b(\n  exit;\n}\n";
        assert_eq!(ptx_entry(ptx, "a"), Some(".entry a(\n  ret;\n}\n.visible "));
        assert_eq!(ptx_entry(ptx, "b"), Some(".entry b(\n  exit;\n}\n"));
        assert_eq!(ptx_entry(ptx, "c"), None);
        let dis = "0000 <a>:\n\ts_nop 0\n\n0100 <b>:\n\ts_endpgm\n";
        assert_eq!(disassembly_of(dis, "a"), Some("<a>:\n\ts_nop 0"));
        assert_eq!(disassembly_of(dis, "b"), Some("<b>:\n\ts_endpgm\n"));
    }
}
