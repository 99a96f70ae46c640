//! The machine a figure was measured on: CPU model (vendor, family and model numbers, which tell
//! a Zen 4 from a Zen 5 when both call themselves "AMD EPYC"), cache sizes, the ISA extensions
//! that decide which code paths run (AVX2, AVX-512, BMI2, …), core count and compiler.
//!
//! The same code ranks differently against its peers on different CPUs, so every figure the
//! xtask prints or writes carries this record: the console tables, `report.md`, `duels.md`,
//! and a `machine` object in `summary.json` and `duels.json`. Read from `/proc/cpuinfo` and
//! `/sys/devices/system/cpu/cpu0/cache/index*/` (Linux); elsewhere the fields say `unknown`.

use std::fmt::Write as _;
use std::path::Path;

use fairdeal::rng::Backend as _;
use fairdeal::rng::backend::ChaCha12;
use serde::Serialize;

/// The ISA extensions worth naming beside a speed figure (x86-64 `flags` and aarch64
/// `Features` spellings of `/proc/cpuinfo`), in the order they are printed. The rest of the
/// flags do not change which code runs here.
const NOTABLE_ISA: &[&str] = &[
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "bmi1",
    "bmi2",
    "adx",
    "aes",
    "vaes",
    "sha_ni",
    "avx512f",
    "avx512dq",
    "avx512bw",
    "avx512vl",
    "avx512ifma",
    "avx512vbmi",
    "avx512_vbmi2",
    "gfni",
    "avx_vnni",
    "asimd",
    "sve",
    "sve2",
    "sha2",
];

/// One cache level as the kernel describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Cache {
    /// 1, 2, 3…
    pub(crate) level: u8,
    /// `Data`, `Instruction` or `Unified`.
    pub(crate) kind: String,
    /// As the kernel writes it, e.g. `48K`, `32768K`.
    pub(crate) size: String,
    /// The logical CPUs sharing it, e.g. `0-1`.
    pub(crate) shared_with: String,
}

impl Cache {
    /// `L1d`, `L1i`, `L2`…
    fn name(&self) -> String {
        match self.kind.as_str() {
            "Data" => format!("L{}d", self.level),
            "Instruction" => format!("L{}i", self.level),
            _ => format!("L{}", self.level),
        }
    }
}

/// The CPU and toolchain behind a measurement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Machine {
    /// `model name` of `/proc/cpuinfo` (on some hosts only "AMD EPYC").
    pub(crate) cpu: String,
    /// `vendor_id` (e.g. `AuthenticAMD`, `GenuineIntel`).
    pub(crate) vendor: String,
    /// `cpu family` and `model`, decimal: e.g. AMD family 25 model 17 is a Zen 4, family 26 a
    /// Zen 5; Intel family 6 model 207 an Emerald Rapids.
    pub(crate) family: Option<u32>,
    pub(crate) model: Option<u32>,
    /// Logical cores this process may use.
    pub(crate) logical_cores: usize,
    /// CPU 0's caches, level by level.
    pub(crate) caches: Vec<Cache>,
    /// The notable ISA extensions present, in [`NOTABLE_ISA`] order.
    pub(crate) isa: Vec<String>,
    /// `rustc --version`.
    pub(crate) rustc: String,
    /// The block function the ChaCha backends use on this machine (`fairdeal-chacha`'s
    /// run-time choice): `avx512`, `avx2` or `portable`; empty where not detected.
    pub(crate) chacha: String,
}

impl Machine {
    /// Reads this machine's record.
    pub(crate) fn detect() -> Self {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let rustc =
            std::process::Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
                .arg("--version")
                .output()
                .ok()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
                .unwrap_or_default();
        Self {
            chacha: ChaCha12::seeded(0).block_function().to_owned(),
            ..Self::from_sources(
                &cpuinfo,
                read_caches(Path::new("/sys/devices/system/cpu/cpu0/cache")),
                std::thread::available_parallelism().map_or(0, |n| n.get()),
                rustc,
            )
        }
    }

    /// Builds the record from `/proc/cpuinfo`'s text and the cache list (the testable part).
    pub(crate) fn from_sources(
        cpuinfo: &str,
        caches: Vec<Cache>,
        logical_cores: usize,
        rustc: String,
    ) -> Self {
        // The first processor's block describes the CPU (hybrid cores aside).
        let field = |key: &str| {
            cpuinfo
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    (k.trim() == key).then(|| v.trim().to_owned())
                })
        };
        let flags = field("flags")
            .or_else(|| field("Features"))
            .unwrap_or_default();
        let present: Vec<&str> = flags.split_whitespace().collect();
        let isa = NOTABLE_ISA
            .iter()
            .filter(|f| present.contains(f))
            .map(|f| (*f).to_owned())
            .collect();
        Self {
            cpu: field("model name").unwrap_or_else(|| "unknown CPU".to_owned()),
            vendor: field("vendor_id").unwrap_or_else(|| "unknown".to_owned()),
            family: field("cpu family").and_then(|v| v.parse().ok()),
            model: field("model").and_then(|v| v.parse().ok()),
            logical_cores,
            caches,
            isa,
            rustc,
            chacha: String::new(),
        }
    }

    /// One line for a console table or a report header, e.g. `AMD EPYC (AuthenticAMD family
    /// 26 model 2), 2 logical cores; L1d 48K, L1i 32K, L2 1024K, L3 32768K (shared by 0-1);
    /// ISA avx2 bmi2 avx512f …; rustc 1.95.0`.
    pub(crate) fn line(&self) -> String {
        let mut s = self.cpu.clone();
        let _ = write!(s, " ({}", self.vendor);
        if let (Some(f), Some(m)) = (self.family, self.model) {
            let _ = write!(s, " family {f} model {m}");
        }
        let _ = write!(s, "), {} logical cores", self.logical_cores);
        if self.caches.is_empty() {
            s.push_str("; caches unknown");
        } else {
            let caches: Vec<String> = self
                .caches
                .iter()
                .map(|c| {
                    let shared = if c.shared_with.contains(['-', ',']) {
                        format!(" (shared by {})", c.shared_with)
                    } else {
                        String::new()
                    };
                    format!("{} {}{shared}", c.name(), c.size)
                })
                .collect();
            let _ = write!(s, "; {}", caches.join(", "));
        }
        if self.isa.is_empty() {
            s.push_str("; ISA: none of the notable extensions");
        } else {
            let _ = write!(s, "; ISA {}", self.isa.join(" "));
        }
        if !self.chacha.is_empty() {
            let _ = write!(s, "; ChaCha blocks {}", self.chacha);
        }
        if !self.rustc.is_empty() {
            let _ = write!(s, "; {}", self.rustc);
        }
        s
    }

    /// The record as JSON, for `summary.json` and `duels.json`, with [`Self::line`] as `text`.
    pub(crate) fn json(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        v["text"] = serde_json::Value::String(self.line());
        v
    }
}

/// Reads `index*/{level,type,size,shared_cpu_list}` under `dir`, ordered by level then kind.
fn read_caches(dir: &Path) -> Vec<Cache> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let read = |p: &Path, f: &str| {
        std::fs::read_to_string(p.join(f))
            .map(|s| s.trim().to_owned())
            .ok()
    };
    let mut caches: Vec<Cache> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("index"))
        })
        .filter_map(|p| {
            Some(Cache {
                level: read(&p, "level")?.parse().ok()?,
                kind: read(&p, "type")?,
                size: read(&p, "size")?,
                shared_with: read(&p, "shared_cpu_list").unwrap_or_default(),
            })
        })
        .collect();
    caches.sort_by(|a, b| (a.level, &a.kind).cmp(&(b.level, &b.kind)));
    caches
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZEN5: &str = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n\
        model name\t: AMD EPYC\nflags\t\t: fpu sse4_1 sse4_2 avx bmi1 avx2 bmi2 avx512f avx512dq \
        adx avx512ifma sha_ni avx512bw avx512vl avx512vbmi avx512_vbmi2 gfni vaes\n\n\
        processor\t: 1\nvendor_id\t: AuthenticAMD\ncpu family\t: 99\nmodel\t\t: 99\n\
        model name\t: other\nflags\t\t: avx512_vp2intersect\n";

    fn caches() -> Vec<Cache> {
        let c = |level, kind: &str, size: &str, shared: &str| Cache {
            level,
            kind: kind.into(),
            size: size.into(),
            shared_with: shared.into(),
        };
        vec![
            c(1, "Data", "48K", "0"),
            c(1, "Instruction", "32K", "0"),
            c(2, "Unified", "1024K", "0"),
            c(3, "Unified", "32768K", "0-1"),
        ]
    }

    #[test]
    fn names_the_cpu_its_caches_and_its_vector_extensions() {
        let m = Machine::from_sources(ZEN5, caches(), 2, "rustc 1.95.0".into());
        assert_eq!(m.cpu, "AMD EPYC");
        assert_eq!((m.family, m.model), (Some(26), Some(2)));
        assert!(m.isa.contains(&"avx512f".to_owned()) && m.isa.contains(&"bmi2".to_owned()));
        // Only the first processor's block counts, and only notable flags are kept.
        assert!(
            !m.isa
                .iter()
                .any(|f| f == "avx512_vp2intersect" || f == "fpu")
        );
        assert_eq!(
            m.line(),
            "AMD EPYC (AuthenticAMD family 26 model 2), 2 logical cores; L1d 48K, L1i 32K, \
             L2 1024K, L3 32768K (shared by 0-1); ISA sse4_2 avx avx2 bmi1 bmi2 adx vaes \
             sha_ni avx512f avx512dq avx512bw avx512vl avx512ifma avx512vbmi avx512_vbmi2 \
             gfni; rustc 1.95.0"
        );
        let j = m.json();
        assert_eq!(j["caches"][3]["size"], "32768K");
        assert_eq!(j["family"], 26);
        assert_eq!(j["text"], m.line());
    }

    /// Negative control: a machine without AVX-512 does not claim it, and a host that hides
    /// its caches says so instead of printing none.
    #[test]
    fn absent_extensions_and_caches_are_not_invented() {
        let avx2_only = "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n\
            model name\t: Intel Xeon\nflags\t\t: avx avx2 bmi2\n";
        let m = Machine::from_sources(avx2_only, Vec::new(), 4, String::new());
        assert_eq!(m.isa, ["avx", "avx2", "bmi2"]);
        assert!(m.line().contains("caches unknown"), "{}", m.line());
        assert!(!m.line().contains("avx512"));
        let empty = Machine::from_sources("", Vec::new(), 1, String::new());
        assert_eq!(empty.cpu, "unknown CPU");
        assert!(empty.line().contains("none of the notable extensions"));
    }

    /// The ChaCha block function the backends run is named (that it is the widest this CPU
    /// runs is `fairdeal-chacha`'s test `the_widest_block_function_is_used`).
    #[test]
    fn names_the_chacha_block_function_this_cpu_gets() {
        let m = Machine::detect();
        let expected = ChaCha12::seeded(0).block_function();
        assert!(
            ["avx512", "avx2", "portable"].contains(&expected),
            "{expected}"
        );
        assert_eq!(m.chacha, expected);
        assert!(
            m.line().contains(&format!("; ChaCha blocks {expected};")),
            "{}",
            m.line()
        );
        assert_eq!(m.json()["chacha"], expected);
        // A record built from text alone (another machine's) claims no block function.
        assert!(
            !Machine::from_sources("", Vec::new(), 1, String::new())
                .line()
                .contains("ChaCha")
        );
    }

    #[test]
    fn reads_this_hosts_caches_in_level_order() {
        let caches = read_caches(Path::new("/sys/devices/system/cpu/cpu0/cache"));
        assert!(caches.windows(2).all(|w| w[0].level <= w[1].level));
        assert!(read_caches(Path::new("/nonexistent/cache")).is_empty());
    }
}
