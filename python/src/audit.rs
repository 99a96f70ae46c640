//! `fairdeal.audit`: the judge of `fairdeal audit`, fed lines from Python.
//!
//! The lines go to the library's [`LineAudit`] (the parser and tallies `fairdeal audit` uses)
//! and the report is its [`AuditReport`](fairdeal::fairness::audit::AuditReport) serialized
//! by the same serde code as `fairdeal audit --json`: the Python report's `to_dict()` is that
//! document, not a restatement of it (`python/tests/test_audit.py` compares the two).

use fairdeal::fairness::DEFAULT_CONFIDENCE;
use fairdeal::fairness::audit::{AuditOptions, LineAudit};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Permutations fed as text lines, tallied as they come (O(n²) memory, never O(lines)), judged
/// with the options given at construction.
#[pyclass(unsendable, module = "fairdeal._native")]
pub(crate) struct Auditor {
    audit: LineAudit,
    options: AuditOptions,
}

#[pymethods]
impl Auditor {
    /// An auditor with checked options (`ValueError` with the CLI's message for a bad one):
    /// `bias` sizes the "lines needed" estimate, `tolerance` (`None`: each test family's
    /// default) and `confidence` (`None`: 99.9999 %) define a FAIR verdict.
    #[new]
    #[pyo3(signature = (bias, tolerance=None, confidence=None))]
    fn new(bias: f64, tolerance: Option<f64>, confidence: Option<f64>) -> PyResult<Self> {
        let confidence = confidence.unwrap_or(DEFAULT_CONFIDENCE);
        Ok(Self {
            audit: LineAudit::new(),
            options: AuditOptions::new(bias, tolerance, confidence).map_err(value_error)?,
        })
    }

    /// Counts every line of `text` (lines end with `\n`; blank lines count for nothing).
    fn feed(&mut self, text: &[u8]) -> PyResult<()> {
        for line in text.split_inclusive(|&b| b == b'\n') {
            self.audit.add_line(line).map_err(value_error)?;
        }
        Ok(())
    }

    /// The report of `fairdeal audit --json` with these options, as JSON text.
    fn report(&self) -> PyResult<String> {
        let report = self.audit.report(&self.options).map_err(value_error)?;
        serde_json::to_string(&report).map_err(value_error)
    }
}

/// Adds the audit class to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Auditor>()
}
