//! Writing the bias heatmaps (`fairdeal_fairness::heatmap`, which renders them) that
//! `fairdeal fairness --plot`, `fairdeal audit --plot` and `fairdeal compare --plot` draw: the
//! checks of the plot path and the atomic write.

use std::path::Path;

use anyhow::Context as _;
pub(crate) use fairdeal::fairness::heatmap::{Heatmap, positions_from_orders};

use crate::common::usage;

/// Refuses plot paths that do not end in `.svg` (case-insensitive): the plots are SVG, and SVG
/// bytes in a `.png` file open nowhere. A bare `.svg` needs a name in front, and an existing
/// directory is not a file.
pub(crate) fn check_svg_path(path: &Path) -> anyhow::Result<()> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name.eq_ignore_ascii_case(".svg") {
        return Err(usage(format!(
            "plot '{}' needs a file name before .svg (e.g. bias.svg)",
            path.display()
        )));
    }
    let is_svg = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    if !is_svg {
        return Err(usage(format!(
            "plots are written as SVG: '{}' must end in .svg",
            path.display()
        )));
    }
    if path.is_dir() {
        return Err(usage(format!(
            "plot '{}' is a directory: give a file name",
            path.display()
        )));
    }
    Ok(())
}

/// Refuses a plot path that names the command's input file: writing the plot would destroy the
/// data it was drawn from.
pub(crate) fn check_not_input(plot: &Path, input: &Path) -> anyhow::Result<()> {
    let same = match (std::fs::canonicalize(plot), std::fs::canonicalize(input)) {
        (Ok(plot), Ok(input)) => plot == input,
        _ => false,
    };
    if same {
        return Err(usage(format!(
            "--plot '{}' is the input file: choose another name",
            plot.display()
        )));
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, renamed over
/// `path` only once complete. A full disk or a signal leaves no partial file and keeps any
/// earlier file of that name.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write as _;
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut file = tempfile::Builder::new()
        .prefix(".fairdeal-plot-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Renders `map` and writes it to `path` (which must end in `.svg`).
pub(crate) fn write(map: &Heatmap<'_>, path: &Path) -> anyhow::Result<()> {
    check_svg_path(path)?;
    let svg = map.render()?;
    write_atomically(path, svg.as_bytes())
        .with_context(|| format!("cannot write plot '{}'", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plot_paths_must_be_svg_files() {
        assert!(check_svg_path(Path::new("x.png")).is_err());
        assert!(check_svg_path(Path::new("x.SVG")).is_ok());
        assert!(check_svg_path(Path::new(".svg")).is_err());
    }
}
