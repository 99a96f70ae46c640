//! `fairdeal compare`: every RNG backend side by side — speed measured live, state size,
//! reach, security, and the shuffle-quality battery of `fairdeal-fairness` (permutation,
//! position, seed-sequence, serial and adjacency tests, Holm-corrected).
//!
//! The speeds are a quick live measurement for orientation (median of a few short rounds on
//! this machine, now); the benchmark suite (`cargo xtask bench`) is where speed claims live.

use std::io::{self, Write};
use std::path::Path;

use anyhow::Context as _;
use fairdeal::fairness::comparison::{
    ComparedRow, ComparisonDocument, GeneratorFacts, SPEED_ROUNDS, compare_battery, compare_config,
    load_average, measure_speed, short_p, test_mark,
};
use fairdeal::fairness::{BatteryConfig, Equivalence, TestName};
use fairdeal::rng::{Backend, backends};
use fairdeal::{DEFAULT_ALGORITHM, Rng};

use fairdeal_cli::args::{PlotArg, RandomArgs};

use crate::cmd::heatmap::{self, Heatmap};
use crate::common::{
    Resolved, Selection, Table, WithResolved, print_json, progress_bar, status_after_write, stdout,
    usage, with_selection,
};
use crate::verdict::EquivalenceArgs;

/// Arguments of `fairdeal compare`.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:\n  \
    fairdeal compare                          # every backend, seed from the OS (reported)\n  \
    fairdeal compare --backends java,pcg64 --seed 1\n  \
    fairdeal compare --seed 1 --json\n  \
    fairdeal compare --seed 1 --plot figures/ # bias heatmaps per backend\n\n",
    "The exit status is the worst backend's verdict (java fails the consecutive-seeds test). ",
    crate::verdict::exit_status_help!()))]
#[command(mut_arg("algo", |a| a.help(format!(
    "Shuffling algorithm the battery runs (see `fairdeal algorithms`) [default: {DEFAULT_ALGORITHM}]"
))))]
#[command(mut_arg("seed", |a| a.help(
    "Seed of the battery (its streams and the first of its seed sequences); without it one is \
     drawn from the OS and reported"
)))]
#[command(mut_arg("backend", |a| a.hide(true)))]
#[command(mut_arg("plot", |a| a.value_name("DIR").help(
    "Write bias heatmaps into this directory (created if missing): per backend, \
     `<name>-position.svg` (52 cards × position) and `<name>-seeds.svg` (the first shuffles of 4 \
     from consecutive seeds, element × position)"
)))]
pub(crate) struct Args {
    /// Comma-separated backends to compare (default: all; see `fairdeal backends`).
    #[arg(long, value_name = "A,B,…", value_delimiter = ',')]
    backends: Vec<String>,

    /// `--algo` and `--seed` (`--backend` is refused: the backends are `--backends`).
    #[command(flatten)]
    random: RandomArgs,

    /// Print the comparison as JSON.
    #[arg(long)]
    json: bool,

    #[command(flatten)]
    plot: PlotArg,

    #[command(flatten)]
    equivalence: EquivalenceArgs,
}

struct Measure<'a> {
    name: &'static str,
    seed: u64,
    config: &'a BatteryConfig,
    equivalence: &'a Equivalence,
}

impl WithResolved for Measure<'_> {
    type Output = ComparedRow;

    fn run<B: Backend>(self, resolved: Resolved<B>) -> anyhow::Result<ComparedRow> {
        let Resolved {
            mut rng, shuffler, ..
        } = resolved;
        let speed = measure_speed(&shuffler, &mut rng);
        let compared = compare_battery(
            &shuffler,
            B::seeded,
            self.seed,
            self.config,
            self.equivalence,
        )
        .map_err(|e| usage(e.to_string()))?;
        let info = B::INFO;
        let facts = GeneratorFacts {
            name: self.name,
            state_bits: info.state_bits,
            reach_n: info.max_full_permutation_n,
            crypto: info.crypto,
        };
        Ok(ComparedRow::new(facts, speed, compared))
    }
}

/// Runs `fairdeal compare`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let Args {
        backends: names,
        random,
        json,
        plot: PlotArg { plot: plot_dir },
        equivalence,
    } = args;
    if random.backend.is_some() {
        return Err(usage(
            "compare takes its backends as --backends A,B,… (default: all), not --backend",
        ));
    }
    let algo = random.algorithm(DEFAULT_ALGORITHM).to_owned();
    let seed_arg = random.seed;
    let equivalence = equivalence.equivalence()?;
    let catalogue = backends();
    let chosen: Vec<&'static str> = if names.is_empty() {
        catalogue.iter().map(|b| b.name).collect()
    } else {
        let mut chosen = Vec::new();
        for name in &names {
            if name.trim().is_empty() {
                return Err(usage("empty backend name in --backends"));
            }
            let info =
                fairdeal::rng::backend_info(name.trim()).map_err(|e| usage(e.to_string()))?;
            if !chosen.contains(&info.name) {
                chosen.push(info.name);
            }
        }
        chosen
    };
    fairdeal::algorithm_by_name(&algo, fairdeal::Lemire).map_err(|e| usage(e.to_string()))?;
    let seed = match seed_arg {
        Some(seed) => seed,
        None => fairdeal::rng::DefaultBackend::from_os()
            .context("cannot seed from the operating system")?
            .next_u64(),
    };
    if let Some(dir) = &plot_dir {
        if dir.exists() && !dir.is_dir() {
            return Err(usage(format!(
                "--plot '{}' is not a directory (compare writes several plots into one)",
                dir.display()
            )));
        }
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create plot directory '{}'", dir.display()))?;
    }
    // Enough shuffles for a fair generator's bounds to certify the tolerances.
    let config = compare_config(&equivalence);
    let bar = progress_bar(chosen.len() as u64, true, "comparing");
    let load = load_average();
    let mut rows = Vec::with_capacity(chosen.len());
    for &name in &chosen {
        let selection = Selection {
            algorithm: algo.clone(),
            backend: name.to_owned(),
            sampler: fairdeal::BACKEND_SAMPLER.to_owned(),
            seed: Some(seed),
        };
        let row = with_selection(
            &selection,
            Measure {
                name,
                seed,
                config: &config,
                equivalence: &equivalence,
            },
        )?;
        if let Some(dir) = &plot_dir {
            plot(dir, &row, &algo, seed, &config)?;
        }
        rows.push(row);
        bar.inc(1);
    }
    bar.finish_and_clear();

    // The worst backend decides: unfair over insufficient over fair.
    let verdict = crate::verdict::worst(rows.iter().map(|row| row.battery.verdict));
    let written = if json {
        print_json(&ComparisonDocument {
            algorithm: &algo,
            seed,
            seed_from_os: seed_arg.is_none(),
            alpha: fairdeal::fairness::PASS_THRESHOLD,
            correction: "holm",
            confidence: equivalence.confidence,
            battery: &config,
            load_average: load,
            backends: &rows,
        })
    } else {
        let mut out = stdout();
        write_text(
            &mut out,
            &rows,
            &algo,
            seed,
            seed_arg.is_none(),
            load,
            &config,
        )
        .and_then(|()| out.flush())
        .map_err(anyhow::Error::from)
    };
    status_after_write(crate::verdict::finish(verdict), written)
}

fn write_text(
    out: &mut impl Write,
    rows: &[ComparedRow],
    algorithm: &str,
    seed: u64,
    from_os: bool,
    load: Option<f64>,
    config: &BatteryConfig,
) -> io::Result<()> {
    writeln!(
        out,
        "algorithm {algorithm}, battery seed {seed}{}; speeds measured live (median of {SPEED_ROUNDS} \
         short rounds{})",
        if from_os { " (drawn from the OS)" } else { "" },
        load.map_or_else(String::new, |l| format!(", load average {l:.2}"))
    )?;
    writeln!(
        out,
        "p-values are two-sided; a test rejects (marked !) when its Holm-adjusted p-value is at \
         most {:e}; a test that does not reject and does not bound its cells within its \
         tolerance is marked ?",
        fairdeal::fairness::PASS_THRESHOLD
    )?;
    writeln!(out)?;
    let mut header = vec![
        "backend",
        "ns/word",
        "ns/deck",
        "state bits",
        "reach",
        "crypto",
    ];
    let names: Vec<&'static str> = rows
        .first()
        .map(|r| r.tests.iter().map(|t| t.name).collect())
        .unwrap_or_default();
    header.extend(names.iter().copied());
    header.push("verdict");
    let table_rows = rows
        .iter()
        .map(|row| {
            let mut cells = vec![
                row.backend.to_owned(),
                format!("{:.2}", row.ns_per_word),
                format!("{:.0}", row.ns_per_52_card_shuffle),
                row.state_bits.to_string(),
                format!("n ≤ {}", row.reach_n),
                if row.crypto { "yes" } else { "no" }.to_owned(),
            ];
            cells.extend(
                row.battery
                    .tests
                    .iter()
                    .map(|t| format!("{}{}", short_p(t.p_value), test_mark(t.verdict()))),
            );
            cells.push(match (row.verdict, row.decided_by) {
                ("unfair", Some(test)) => format!("UNFAIR ({test})"),
                (verdict, _) => verdict.to_uppercase(),
            });
            cells
        })
        .collect();
    Table {
        header,
        rows: table_rows,
    }
    .write(out)?;
    writeln!(out)?;
    writeln!(
        out,
        "ns/deck: one {algorithm} shuffle of 52 cards with the backend's own \
         sampler; reach: the largest deck whose every order the state can reach (52 needs 226 \
         bits). Tests: permutation and serial on {} cards × {} shuffles, position and adjacency \
         on {} cards × {}, seeds-* on the first shuffle of {} cards from {} seeds each.",
        config.small_n,
        config.small_trials,
        config.deck_n,
        config.deck_trials,
        config.small_n,
        config.seeds
    )?;
    for row in rows {
        writeln!(out, "{}: {}", row.backend, row.statement)?;
    }
    Ok(())
}

fn plot(
    dir: &Path,
    row: &ComparedRow,
    algorithm: &str,
    seed: u64,
    config: &BatteryConfig,
) -> anyhow::Result<()> {
    let verdict = |name: TestName| {
        row.battery.test(name).map_or(String::new(), |t| {
            format!("p = {} ({})", short_p(t.p_value), t.verdict())
        })
    };
    if let Some(test) = row.battery.test(TestName::Position) {
        let n = test.report.n;
        heatmap::write(
            &Heatmap {
                title: format!(
                    "{algorithm} + {}: where each of {n} cards lands, {} shuffles, seed {seed}, {}",
                    row.backend,
                    test.report.trials,
                    verdict(TestName::Position)
                ),
                n,
                counts: &test.report.counts,
                expected: test.report.trials as f64 / n as f64,
                skip_diagonal: false,
                row_axis: "card",
                column_axis: "position",
                labels: None,
                columns_are_elements: false,
            },
            &dir.join(format!("{}-position.svg", row.backend)),
        )?;
    }
    if let Some(test) = row.battery.test(TestName::SeedsConsecutive) {
        let n = test.report.n;
        let matrix = heatmap::positions_from_orders(n, &test.report.counts);
        heatmap::write(
            &Heatmap {
                title: format!(
                    "{algorithm} + {}: first shuffle of {n} from seeds {seed}, {seed}+1, … ({} seeds), {}",
                    row.backend,
                    config.seeds,
                    verdict(TestName::SeedsConsecutive)
                ),
                n,
                counts: &matrix,
                expected: test.report.trials as f64 / n as f64,
                skip_diagonal: false,
                row_axis: "element",
                column_axis: "position",
                labels: None,
                columns_are_elements: false,
            },
            &dir.join(format!("{}-seeds.svg", row.backend)),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// `compare` flattens the shared `--algo` and `--seed` with its own help texts, and hides
    /// `--backend` (it takes `--backends`).
    #[test]
    fn the_help_lists_algo_and_seed_with_their_own_texts() {
        let mut root = crate::command();
        root.build();
        let compare = root.find_subcommand("compare").expect("compare").clone();
        let help = |id: &str| {
            let arg = compare
                .get_arguments()
                .find(|a| a.get_id() == id)
                .unwrap_or_else(|| panic!("--{id}"));
            (
                arg.is_hide_set(),
                arg.get_help().map(ToString::to_string).unwrap_or_default(),
            )
        };
        let (hidden, algo) = help("algo");
        assert!(!hidden && algo.contains("the battery runs") && algo.contains("[default: "));
        let (hidden, seed) = help("seed");
        assert!(!hidden && seed.starts_with("Seed of the battery"), "{seed}");
        assert!(help("backend").0);
    }
}
