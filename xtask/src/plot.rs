//! SVG plots (plotters): log-log cost against N, and the duels' ratios with their quartiles.

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

/// A log-log line chart with one line per series, each with its own colour and marker shape
/// (Okabe–Ito colours crossed with five shapes, so no two of up to 35 series look alike), and
/// the legend beside the plot, never on the data. Returns `false` (and writes nothing) when
/// there is no positive point to draw.
pub(crate) fn loglog(path: &Path, title: &str, y_desc: &str, series: &[Series]) -> Result<bool> {
    let Some(((x0, x1), (y0, y1))) = bounds(series) else {
        return Ok(false);
    };
    let root = SVGBackend::new(path, (1060, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let (plot_area, side) = root.split_horizontally(860);
    let mut chart = ChartBuilder::on(&plot_area)
        .caption(title, ("sans-serif", 18))
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
    for (i, (_, pts)) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let mut pts: Vec<(f64, f64)> = pts
            .iter()
            .copied()
            .filter(|(x, y)| *x > 0.0 && *y > 0.0)
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart
            .draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))
            .map_err(err)?;
        chart
            .draw_series(
                pts.iter()
                    .map(|&p| EmptyElement::at(p) + Polygon::new(marker_shape(i), colour.filled())),
            )
            .map_err(err)?;
    }
    let font = ("sans-serif", 14).into_font();
    let mut y = 50;
    for (i, (name, _)) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        side.draw(&PathElement::new(
            vec![(8, y + 7), (36, y + 7)],
            colour.stroke_width(2),
        ))
        .map_err(err)?;
        side.draw(
            &(EmptyElement::at((22, y + 7)) + Polygon::new(marker_shape(i), colour.filled())),
        )
        .map_err(err)?;
        side.draw(&Text::new(
            name.as_str(),
            (44, y),
            font.clone().color(&BLACK),
        ))
        .map_err(err)?;
        y += 24;
    }
    root.present().map_err(err)?;
    Ok(true)
}

/// One duel on a ratio chart: the median of its per-round ratios (peer time / our time), their
/// quartiles, and the goal stated for it, if any.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RatioPoint {
    /// Index into the chart's categories (the x groups).
    pub(crate) category: usize,
    /// Index into the chart's series (one colour and marker each).
    pub(crate) series: usize,
    pub(crate) median: f64,
    pub(crate) q1: f64,
    pub(crate) q3: f64,
    pub(crate) goal: Option<f64>,
}

/// Okabe–Ito colours: distinguishable with the common colour-vision deficiencies.
const COLOURS: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];

/// A marker outline in pixels around its point: circle, triangle, square, diamond, inverted
/// triangle, then round again. Series `i` takes shape `i % 5` and colour `i % 7`, so up to 35
/// series differ in colour or shape, and the first five in both.
fn marker_shape(i: usize) -> Vec<(i32, i32)> {
    match i % 5 {
        0 => (0..16)
            .map(|k| {
                let a = f64::from(k) * std::f64::consts::TAU / 16.0;
                (
                    (6.0 * a.cos()).round() as i32,
                    (6.0 * a.sin()).round() as i32,
                )
            })
            .collect(),
        1 => vec![(0, -7), (6, 5), (-6, 5)],
        2 => vec![(-5, -5), (5, -5), (5, 5), (-5, 5)],
        3 => vec![(0, -7), (7, 0), (0, 7), (-7, 0)],
        _ => vec![(0, 7), (6, -5), (-6, -5)],
    }
}

/// The duels as ratios: one x group per category (a case and size), one marker per series
/// (backend) at the median per-round ratio, with a bar from the lower to the upper quartile,
/// a black line at the goal across the duels read against it, and a dashed line at 1× (as
/// fast as the peer). Every median is written on a white box beside its marker. The legend is drawn beside the plot, never on the data. Returns `false` (and writes
/// nothing) when there is no point.
pub(crate) fn ratios(
    path: &Path,
    title: &str,
    categories: &[String],
    series: &[String],
    points: &[RatioPoint],
) -> Result<bool> {
    let points: Vec<RatioPoint> = points
        .iter()
        .copied()
        .filter(|p| {
            p.category < categories.len() && p.series < series.len() && p.median.is_finite()
        })
        .collect();
    if points.is_empty() {
        return Ok(false);
    }
    let top = points
        .iter()
        .flat_map(|p| [p.median, p.q3, p.goal.unwrap_or(0.0)])
        .filter(|y| y.is_finite())
        .fold(1.0f64, f64::max)
        * 1.15;
    let root = SVGBackend::new(path, (1100, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let (plot_area, side) = root.split_horizontally(860);
    let k = categories.len() as f64;
    let cats = categories.to_vec();
    let mut chart = ChartBuilder::on(&plot_area)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5..(k - 0.5), 0.0..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(categories.len())
        .x_label_style(("sans-serif", 14))
        .x_label_formatter(&move |x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < cats.len() {
                cats[i as usize].clone()
            } else {
                String::new()
            }
        })
        .y_desc("peer time / our time (median per round; above 1: ours faster)")
        .y_label_formatter(&|y| format!("{y:.1}×"))
        .draw()
        .map_err(err)?;
    chart
        .draw_series(DashedLineSeries::new(
            [(-0.5, 1.0), (k - 0.5, 1.0)],
            6,
            4,
            RGBColor(110, 110, 110).stroke_width(1),
        ))
        .map_err(err)?;
    let m = series.len().max(1) as f64;
    // Each series' slot in a group (no wider than a third of it, so one series keeps narrow
    // bars and goal marks).
    let slot = 0.8 / m.max(3.0);
    let x_of = |p: &RatioPoint| p.category as f64 + (p.series as f64 - (m - 1.0) / 2.0) * slot;
    // The goals: one black line per category and goal value, across the slots of the duels
    // read against it (the whole group when every backend has the same goal), labelled at its
    // left end, so that a goal is never confused with a series and never hides behind a bar.
    let mut goals: Vec<(usize, f64, f64, f64)> = Vec::new(); // (category, goal, x from, x to)
    for p in &points {
        let Some(goal) = p.goal.filter(|g| g.is_finite()) else {
            continue;
        };
        let x = x_of(p);
        match goals
            .iter_mut()
            .find(|(c, g, _, _)| *c == p.category && *g == goal)
        {
            Some(line) => {
                line.2 = line.2.min(x);
                line.3 = line.3.max(x);
            }
            None => goals.push((p.category, goal, x, x)),
        }
    }
    for &(_, goal, from, to) in &goals {
        let (from, to) = (from - slot * 0.5, to + slot * 0.5);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(from, goal), (to, goal)],
                BLACK.stroke_width(2),
            )))
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(
                EmptyElement::at((from, goal))
                    + Text::new(
                        format!("goal {}×", format_num(goal)),
                        (0, -15),
                        ("sans-serif", 12).into_font().color(&BLACK),
                    ),
            ))
            .map_err(err)?;
    }
    for p in &points {
        let colour = COLOURS[p.series % COLOURS.len()];
        let x = x_of(p);
        let bar = colour.stroke_width(2);
        chart
            .draw_series([
                PathElement::new(vec![(x, p.q1), (x, p.q3)], bar),
                PathElement::new(vec![(x - slot * 0.15, p.q1), (x + slot * 0.15, p.q1)], bar),
                PathElement::new(vec![(x - slot * 0.15, p.q3), (x + slot * 0.15, p.q3)], bar),
            ])
            .map_err(err)?;
        // The value on a white box right of the marker, clear of the quartile caps: readable
        // over a goal line or a neighbour's bar.
        let label = format!("{:.2}", p.median);
        let width = 7 * label.chars().count() as i32 + 4;
        chart
            .draw_series(std::iter::once(
                EmptyElement::at((x, p.median))
                    + Rectangle::new([(10, -8), (10 + width, 8)], WHITE.mix(0.9).filled())
                    + Polygon::new(marker_shape(p.series), colour.filled())
                    + Text::new(
                        label,
                        (12, -6),
                        ("sans-serif", 12).into_font().color(&BLACK),
                    ),
            ))
            .map_err(err)?;
    }

    // The legend, beside the plot.
    let font = ("sans-serif", 15).into_font();
    let small = ("sans-serif", 13).into_font();
    let mut y = 60;
    side.draw(&Text::new("backend", (10, y), font.clone().color(&BLACK)))
        .map_err(err)?;
    for (i, name) in series.iter().enumerate() {
        y += 26;
        let colour = COLOURS[i % COLOURS.len()];
        side.draw(
            &(EmptyElement::at((22, y + 7)) + Polygon::new(marker_shape(i), colour.filled())),
        )
        .map_err(err)?;
        side.draw(&Text::new(
            name.as_str(),
            (40, y),
            font.clone().color(&BLACK),
        ))
        .map_err(err)?;
    }
    y += 44;
    let key: [(&str, &str); 4] = [
        ("marker", "median of the per-round ratios"),
        ("bar", "lower to upper quartile"),
        ("goal", "the goal of the duels it spans"),
        ("parity", "1×: as fast as the peer"),
    ];
    for (what, text) in key {
        let grey = RGBColor(110, 110, 110);
        match what {
            "bar" => side.draw(&PathElement::new(
                vec![(22, y - 2), (22, y + 14)],
                BLACK.stroke_width(2),
            )),
            "goal" => side.draw(&PathElement::new(
                vec![(10, y + 6), (34, y + 6)],
                BLACK.stroke_width(2),
            )),
            "parity" => side
                .draw(&PathElement::new(
                    vec![(10, y + 6), (18, y + 6)],
                    grey.stroke_width(1),
                ))
                .and_then(|()| {
                    side.draw(&PathElement::new(
                        vec![(24, y + 6), (32, y + 6)],
                        grey.stroke_width(1),
                    ))
                }),
            _ => side.draw(
                &(EmptyElement::at((22, y + 6)) + Polygon::new(marker_shape(0), BLACK.filled())),
            ),
        }
        .map_err(err)?;
        side.draw(&Text::new(text, (40, y), small.clone().color(&BLACK)))
            .map_err(err)?;
        y += 24;
    }
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
        let series = vec![("inplace".to_owned(), vec![(16.0, 100.0), (1024.0, 6400.0)])];
        assert!(loglog(&dir.join("a.svg"), "t", "ns", &series).unwrap());
        assert!(!loglog(&dir.join("b.svg"), "t", "ns", &[]).unwrap());
        let cats = vec!["N = 1000".to_owned(), "N = 10^4".to_owned()];
        let backends = vec!["wyrand".to_owned(), "chacha12".to_owned()];
        let point = |category, series, median| RatioPoint {
            category,
            series,
            median,
            q1: median - 0.1,
            q3: median + 0.1,
            goal: Some(2.5),
        };
        let pts = [point(0, 0, 2.6), point(1, 0, 2.4), point(0, 1, 1.8)];
        assert!(ratios(&dir.join("c.svg"), "t", &cats, &backends, &pts).unwrap());
        assert!(!ratios(&dir.join("d.svg"), "t", &cats, &backends, &[]).unwrap());
        let c = std::fs::read_to_string(dir.join("c.svg")).unwrap();
        // Every median is labelled, the shared goal is one labelled line per group, and both
        // series are in the legend.
        for label in [
            "2.60",
            "2.40",
            "1.80",
            "goal 2.5×",
            "wyrand",
            "chacha12",
            "quartile",
        ] {
            assert!(c.contains(label), "{label} missing");
        }
        assert_eq!(
            c.matches("goal 2.5×").count(),
            2,
            "one goal label per group"
        );
        assert!(!dir.join("d.svg").exists());
        let svg = std::fs::read_to_string(dir.join("a.svg")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(svg.starts_with("<svg"));
        // The legend names the series (beside the plot).
        assert!(
            svg.contains("inplace"),
            "series name missing from the legend"
        );
    }

    #[test]
    fn labels_are_compact() {
        assert_eq!(format_num(1024.0), "1024");
        assert_eq!(format_num(1.5), "1.5");
        assert_eq!(format_num(1_048_576.0), "1.0e6");
    }
}
