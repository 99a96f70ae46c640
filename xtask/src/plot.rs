//! SVG plots (plotters): log-log cost against N, and ns/element dot charts.

use std::path::Path;

use anyhow::{Result, anyhow};
use plotters::prelude::*;

/// A named series of `(x, y)` points.
pub(crate) type Series = (String, Vec<(f64, f64)>);

fn err<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow!("plotting: {e}")
}

fn bounds(series: &[Series]) -> Option<((f64, f64), (f64, f64))> {
    let pts = series
        .iter()
        .flat_map(|(_, p)| p.iter())
        .filter(|(x, y)| *x > 0.0 && *y > 0.0);
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    let mut any = false;
    for &(x, y) in pts {
        any = true;
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    any.then_some(((x0 / 1.3, x1 * 1.3), (y0 / 1.6, y1 * 1.6)))
}

/// A log-log line chart with one line per series. Returns `false` (and writes nothing) when
/// there is no positive point to draw.
pub(crate) fn loglog(path: &Path, title: &str, y_desc: &str, series: &[Series]) -> Result<bool> {
    let Some(((x0, x1), (y0, y1))) = bounds(series) else {
        return Ok(false);
    };
    let root = SVGBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("N (elements)")
        .y_desc(y_desc)
        .x_label_formatter(&|x| format_num(*x))
        .y_label_formatter(&|y| format_num(*y))
        .draw()
        .map_err(err)?;
    for (i, (name, pts)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let mut pts: Vec<(f64, f64)> = pts
            .iter()
            .copied()
            .filter(|(x, y)| *x > 0.0 && *y > 0.0)
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(err)?
            .label(name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(err)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)?;
    Ok(true)
}

/// A dot chart: one column per category (backend), one marker series per subject, log y.
pub(crate) fn dots(
    path: &Path,
    title: &str,
    y_desc: &str,
    categories: &[String],
    series: &[(String, Vec<(usize, f64)>)],
) -> Result<bool> {
    let ys: Vec<f64> = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(_, y)| y))
        .filter(|y| *y > 0.0)
        .collect();
    if ys.is_empty() || categories.is_empty() {
        return Ok(false);
    }
    let y0 = ys.iter().copied().fold(f64::MAX, f64::min) / 1.5;
    // Headroom above the highest point for the legend.
    let y1 = ys.iter().copied().fold(f64::MIN, f64::max) * 4.0;
    let root = SVGBackend::new(path, (1000, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let k = categories.len() as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(-0.5..(k - 0.5), (y0..y1).log_scale())
        .map_err(err)?;
    let cats = categories.to_vec();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(categories.len())
        .x_label_formatter(&move |x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < cats.len() {
                cats[i as usize].clone()
            } else {
                String::new()
            }
        })
        .y_desc(y_desc)
        .y_label_formatter(&|y| format_num(*y))
        .draw()
        .map_err(err)?;
    let m = series.len().max(1) as f64;
    for (i, (name, pts)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let offset = (i as f64 - (m - 1.0) / 2.0) * (0.7 / m);
        chart
            .draw_series(
                pts.iter()
                    .filter(|(_, y)| *y > 0.0)
                    .map(|&(c, y)| TriangleMarker::new((c as f64 + offset, y), 5, color.filled())),
            )
            .map_err(err)?
            .label(name.as_str())
            .legend(move |(x, y)| TriangleMarker::new((x + 8, y), 5, color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)?;
    Ok(true)
}

/// Compact axis labels: `1024` → `1024`, `1048576` → `1.0e6`.
fn format_num(x: f64) -> String {
    if x == 0.0 {
        "0".to_owned()
    } else if (0.01..100_000.0).contains(&x.abs()) {
        let s = format!("{x:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        format!("{x:.1e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_svg_files() {
        let dir = std::env::temp_dir().join(format!("xtask-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let series = vec![("a".to_owned(), vec![(16.0, 100.0), (1024.0, 6400.0)])];
        assert!(loglog(&dir.join("a.svg"), "t", "ns", &series).unwrap());
        assert!(!loglog(&dir.join("b.svg"), "t", "ns", &[]).unwrap());
        let cats = vec!["pcg64".to_owned(), "wyrand".to_owned()];
        assert!(
            dots(
                &dir.join("c.svg"),
                "t",
                "ns/el",
                &cats,
                &[("inplace".to_owned(), vec![(0, 1.5), (1, 1.1)])]
            )
            .unwrap()
        );
        let svg = std::fs::read_to_string(dir.join("a.svg")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(svg.starts_with("<svg"));
    }

    #[test]
    fn labels_are_compact() {
        assert_eq!(format_num(1024.0), "1024");
        assert_eq!(format_num(1.5), "1.5");
        assert_eq!(format_num(1_048_576.0), "1.0e6");
    }
}
