//! Bias heatmaps (feature `plot`): an element × position (or element × next element) grid
//! coloured by how far each count is from what a fair shuffle expects, the picture of Mike
//! Bostock's "Will It Shuffle?". `fairdeal fairness --plot`, `fairdeal audit --plot` and
//! `fairdeal compare --plot` write them; where the file goes is the caller's business.
//!
//! plotters lays out the caption, axes and the colour legend; the cells are written as plain
//! SVG `<rect>` elements at the coordinates plotters computed, each with a `<title>` so a
//! browser shows the cell's counts on hover (plotters has no way to attach one).
//!
//! ```
//! use fairdeal_fairness::heatmap::Heatmap;
//! let counts = [3u64, 1, 1, 3];
//! let svg = Heatmap {
//!     title: "two cards".to_owned(),
//!     n: 2,
//!     counts: &counts,
//!     expected: 2.0,
//!     skip_diagonal: false,
//!     row_axis: "card",
//!     column_axis: "position",
//!     labels: None,
//!     columns_are_elements: false,
//! }
//! .render()?;
//! assert_eq!(svg.matches("<title>").count(), 4);
//! # Ok::<(), fairdeal_fairness::heatmap::HeatmapError>(())
//! ```

use std::fmt::Write as _;

use crate::unrank_permutation;

/// The most cells drawn per side. Larger matrices are drawn in blocks of neighbouring rows and
/// columns (summed counts, summed expectations), so a 1,024-element test makes a 64 × 64 map of
/// a few hundred kilobytes instead of a million rectangles.
pub const MAX_SIDE: usize = 64;

/// The colour scale saturates at this many standard deviations at least: a fair shuffle's
/// cells stay pale (|z| rarely exceeds 4 among a few thousand cells), a bias saturates.
const MIN_SCALE: f64 = 4.0;

/// Why a heatmap could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HeatmapError {
    /// plotters refused to draw (its message).
    #[error("cannot draw the heatmap: {0}")]
    Draw(String),
    /// plotters' document has no closing `</svg>` to put the cells before.
    #[error("plotters wrote no closing </svg>")]
    Unclosed,
    /// Formatting into the document failed.
    #[error("cannot format the heatmap")]
    Format,
}

impl<E: std::error::Error + Send + Sync> From<plotters::drawing::DrawingAreaErrorKind<E>>
    for HeatmapError
{
    fn from(err: plotters::drawing::DrawingAreaErrorKind<E>) -> Self {
        HeatmapError::Draw(err.to_string())
    }
}

impl From<std::fmt::Error> for HeatmapError {
    fn from(_: std::fmt::Error) -> Self {
        HeatmapError::Format
    }
}

/// What to draw.
#[derive(Debug, Clone)]
pub struct Heatmap<'a> {
    /// The caption.
    pub title: String,
    /// The matrix is `n × n`, row-major.
    pub n: usize,
    /// The counts, `counts[row * n + column]`.
    pub counts: &'a [u64],
    /// Expected count of every cell off the diagonal (and on it unless `skip_diagonal`).
    pub expected: f64,
    /// The diagonal is structurally empty (adjacency: nothing follows itself).
    pub skip_diagonal: bool,
    /// The name of a row (`"element"`) and of a column (`"position"`, `"next element"`).
    pub row_axis: &'a str,
    /// See `row_axis`.
    pub column_axis: &'a str,
    /// Labels of the elements (rows, and columns when they are elements too); `None` numbers
    /// them from 0.
    pub labels: Option<&'a [String]>,
    /// Whether columns are elements (use `labels`) or positions (numbered from 0).
    pub columns_are_elements: bool,
}

/// The element × position matrix implied by counts of whole orders (index = lexicographic
/// rank), so a permutation test can be drawn as a heatmap too.
pub fn positions_from_orders(n: usize, order_counts: &[u64]) -> Vec<u64> {
    let mut matrix = vec![0u64; n * n];
    for (rank, &count) in order_counts.iter().enumerate() {
        if count == 0 {
            continue;
        }
        if let Ok(order) = unrank_permutation(n, rank as u64) {
            for (position, &element) in order.iter().enumerate() {
                matrix[element * n + position] += count;
            }
        }
    }
    matrix
}

/// One drawn cell: a block of `rows × columns` of the matrix.
struct Cell {
    row: usize,
    column: usize,
    observed: u64,
    expected: f64,
    z: f64,
}

impl Heatmap<'_> {
    fn block(&self) -> usize {
        self.n.div_ceil(MAX_SIDE).max(1)
    }

    fn cells(&self) -> (usize, Vec<Cell>) {
        let block = self.block();
        let side = self.n.div_ceil(block);
        let mut observed = vec![0u64; side * side];
        let mut expected = vec![0f64; side * side];
        for row in 0..self.n {
            for column in 0..self.n {
                if self.skip_diagonal && row == column {
                    continue;
                }
                let cell = (row / block) * side + column / block;
                observed[cell] += self.counts.get(row * self.n + column).copied().unwrap_or(0);
                expected[cell] += self.expected;
            }
        }
        let cells = (0..side * side)
            .filter(|&i| expected[i] > 0.0)
            .map(|i| Cell {
                row: i / side,
                column: i % side,
                observed: observed[i],
                expected: expected[i],
                z: (observed[i] as f64 - expected[i]) / expected[i].sqrt(),
            })
            .collect();
        (side, cells)
    }

    fn label(&self, index: usize, is_element: bool) -> String {
        match self.labels {
            Some(labels) if is_element => labels
                .get(index)
                .cloned()
                .unwrap_or_else(|| index.to_string()),
            _ => index.to_string(),
        }
    }

    fn range_label(&self, block_index: usize, is_element: bool) -> String {
        let block = self.block();
        let first = block_index * block;
        let last = (first + block).min(self.n) - 1;
        if first == last {
            self.label(first, is_element)
        } else {
            format!(
                "{}–{}",
                self.label(first, is_element),
                self.label(last, is_element)
            )
        }
    }

    /// Renders the SVG document.
    ///
    /// # Errors
    ///
    /// [`HeatmapError`] when plotters fails to lay the chart out.
    pub fn render(&self) -> Result<String, HeatmapError> {
        use plotters::prelude::*;

        let (side, cells) = self.cells();
        let largest = cells.iter().map(|c| c.z.abs()).fold(0.0, f64::max);
        let scale = largest.max(MIN_SCALE).ceil();
        let block = self.block();
        let blocked = if block > 1 {
            format!(" (blocks of {block})")
        } else {
            String::new()
        };

        let mut svg = String::new();
        let mut rects = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (900, 800)).into_drawing_area();
            root.fill(&WHITE)?;
            let root = root.titled(&self.title, ("sans-serif", 18))?;
            let (grid_area, legend_area) = root.split_horizontally(760);
            let rows_f = side as f64;
            let mut chart = ChartBuilder::on(&grid_area)
                .margin(12)
                .x_label_area_size(44)
                .y_label_area_size(64)
                // Cell i spans [i - 0.5, i + 0.5], so integer ticks label cell centres.
                .build_cartesian_2d(-0.5..rows_f - 0.5, -0.5..rows_f - 0.5)?;
            let tick = |v: &f64, is_element: bool| {
                let index = v.round() as usize;
                if (v - v.round()).abs() > 1e-9 || index >= side {
                    String::new()
                } else {
                    self.range_label(index, is_element)
                }
            };
            let labels = side.min(16) + 1;
            chart
                .configure_mesh()
                .disable_mesh()
                .x_desc(format!("{}{blocked}", self.column_axis))
                .y_desc(format!("{} (first at the top){blocked}", self.row_axis))
                .x_labels(labels)
                .y_labels(labels)
                // Rows run top-down: the top row (y = side - 1) is row 0.
                .x_label_formatter(&|v| tick(v, self.columns_are_elements))
                .y_label_formatter(&|v| tick(&(rows_f - 1.0 - v), true))
                .draw()?;
            for cell in &cells {
                let (x, y) = (cell.column as f64, rows_f - 1.0 - cell.row as f64);
                let top_left = chart.backend_coord(&(x - 0.5, y + 0.5));
                let bottom_right = chart.backend_coord(&(x + 0.5, y - 0.5));
                let (r, g, b) = diverging(cell.z / scale);
                let title = format!(
                    "{} {} → {} {}: {} observed, {:.1} expected ({:+.1}%, z = {:+.2})",
                    self.row_axis,
                    self.range_label(cell.row, true),
                    self.column_axis,
                    self.range_label(cell.column, self.columns_are_elements),
                    cell.observed,
                    cell.expected,
                    (cell.observed as f64 / cell.expected - 1.0) * 100.0,
                    cell.z
                );
                writeln!(
                    rects,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#{r:02x}{g:02x}{b:02x}\"><title>{}</title></rect>",
                    top_left.0,
                    top_left.1,
                    (bottom_right.0 - top_left.0).max(1),
                    (bottom_right.1 - top_left.1).max(1),
                    xml_escape(&title)
                )?;
            }

            // The legend: a colour bar from -scale to +scale standard deviations.
            let mut legend = ChartBuilder::on(&legend_area)
                .margin_top(40)
                .margin_bottom(60)
                .margin_right(10)
                .y_label_area_size(44)
                .build_cartesian_2d(0f64..1f64, -scale..scale)?;
            legend
                .configure_mesh()
                .disable_mesh()
                .disable_x_axis()
                .y_desc("z = (observed − expected) / √expected")
                .y_labels(9)
                .y_label_formatter(&|v| format!("{v:+.0}"))
                .draw()?;
            let steps = 64;
            legend.draw_series((0..steps).map(|i| {
                let low = -scale + 2.0 * scale * f64::from(i) / f64::from(steps);
                let high = low + 2.0 * scale / f64::from(steps);
                let (r, g, b) = diverging((low + high) / 2.0 / scale);
                Rectangle::new([(0.0, low), (1.0, high)], RGBColor(r, g, b).filled())
            }))?;
            root.present()?;
        }
        let end = svg.rfind("</svg>").ok_or(HeatmapError::Unclosed)?;
        svg.insert_str(end, &format!("<g class=\"cells\">\n{rects}</g>\n"));
        Ok(svg)
    }
}

/// Blue (below expectation) through white to red (above), for `t` in `[-1, 1]` (clamped).
fn diverging(t: f64) -> (u8, u8, u8) {
    let t = if t.is_nan() { 0.0 } else { t.clamp(-1.0, 1.0) };
    let (end_r, end_g, end_b) = if t < 0.0 {
        (33.0, 102.0, 172.0)
    } else {
        (178.0, 24.0, 43.0)
    };
    let mix = |end: f64| (255.0 + (end - 255.0) * t.abs()).round() as u8;
    (mix(end_r), mix(end_g), mix(end_b))
}

fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_colour_scale_diverges_through_white() {
        assert_eq!(diverging(0.0), (255, 255, 255));
        assert_eq!(diverging(1.0), (178, 24, 43));
        assert_eq!(diverging(-5.0), (33, 102, 172));
        assert_eq!(diverging(f64::NAN), (255, 255, 255));
    }

    #[test]
    fn order_counts_become_a_position_matrix() {
        // [0, 1] once, [1, 0] three times.
        assert_eq!(positions_from_orders(2, &[1, 3]), [1, 3, 3, 1]);
    }

    #[test]
    fn big_matrices_are_drawn_in_blocks_with_a_title_per_cell() {
        let n = 130;
        let counts = vec![10u64; n * n];
        let map = Heatmap {
            title: "t <&>".to_owned(),
            n,
            counts: &counts,
            expected: 10.0,
            skip_diagonal: false,
            row_axis: "element",
            column_axis: "position",
            labels: None,
            columns_are_elements: false,
        };
        let svg = map.render().unwrap();
        assert_eq!(svg.matches("<title>").count(), 44 * 44);
        assert!(svg.contains("element 0–2 → position 0–2: 90 observed"));
        assert!(svg.len() < 2_000_000, "{}", svg.len());
        assert_eq!(xml_escape("<a & 'b'>"), "&lt;a &amp; &apos;b&apos;&gt;");
    }
}
