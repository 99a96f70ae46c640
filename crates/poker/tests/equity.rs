//! Hold'em equity against published exact values and brute force.

use fairdeal_cards::{Card, CardSet, parse_cards};
use fairdeal_inplace::Inplace;
use fairdeal_poker::{
    EquityConfig, EquityReport, MAX_EQUITY_TRIALS, PokerError, Seat, Spot, equity, equity_exact,
    equity_monte_carlo, evaluate,
};
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn exact(hands: &[&str], board: &str) -> EquityReport {
    equity_exact(&Spot::parse(hands, board, "").unwrap()).unwrap()
}

fn counts(r: &EquityReport, p: usize) -> (u64, u64) {
    let n = r.trials as f64;
    (
        (r.players[p].win * n).round() as u64,
        (r.players[p].tie * n).round() as u64,
    )
}

/// GNU poker-eval's `hcmp2` output quoted at
/// <https://brainwagon.org/2005/04/09/texas-holdem-trivia>: all 1,712,304 boards.
#[test]
fn heads_up_preflop_matches_poker_eval() {
    for (hands, win, lose, tie) in [
        (["AdAc", "KhKs"], 1_388_072, 317_694, 6_538),
        (["AdAc", "Td9d"], 1_338_249, 367_143, 6_912),
        (["AdAc", "QcJh"], 1_450_987, 254_763, 6_554),
    ] {
        let r = exact(&hands, "");
        assert!(r.exact);
        assert_eq!(r.trials, 1_712_304);
        assert_eq!(counts(&r, 0), (win, tie), "{hands:?}");
        assert_eq!(counts(&r, 1), (lose, tie), "{hands:?}");
        let expected = (win as f64 + tie as f64 / 2.0) / 1_712_304.0;
        assert!((r.players[0].equity - expected).abs() < 1e-12);
    }
}

/// Kevin Gong, "Calling Pre-Flop All-In with KK or AK"
/// (<http://www.kevingong.com/Math/KKPreflop.html>): AA against KK is an 82.6% favourite
/// when the kings share both suits with the aces, 81.9% when they share one, 81.3% when
/// they share none, and 81.946031% averaged over the unknown suits.
#[test]
fn aces_against_kings_by_shared_suits() {
    let aa = |kings: &str| exact(&["AsAh", kings], "").players[0].equity;
    let (both, one, none) = (aa("KsKh"), aa("KsKd"), aa("KcKd"));
    assert!((both - 0.826).abs() < 0.0005, "{both}");
    assert!((one - 0.819).abs() < 0.0005, "{one}");
    assert!((none - 0.813).abs() < 0.0005, "{none}");
    // The six king combinations given As Ah: one shares both suits, one none, four one.
    let average = (both + none + 4.0 * one) / 6.0;
    assert!((average - 0.819_460_31).abs() < 1e-6, "{average}");
    let r = exact(&["AsAh", "KsKd"], "");
    assert!((r.players[0].equity + r.players[1].equity - 1.0).abs() < 1e-12);
}

/// Brute force with the public evaluator: every completion of the board, for known hands.
fn brute_force(hands: &[&str], board: &str) -> Vec<f64> {
    let holes: Vec<Vec<Card>> = hands.iter().map(|h| parse_cards(h).unwrap()).collect();
    let board = parse_cards(board).unwrap();
    let used: CardSet = holes.iter().flatten().chain(&board).copied().collect();
    let rest: Vec<Card> = used.complement().iter().collect();
    let need = 5 - board.len();
    let mut equity = vec![0.0; hands.len()];
    let mut deals = 0u64;
    let mut pick = vec![0usize; need];
    fn next(pick: &mut [usize], n: usize) -> bool {
        let k = pick.len();
        for i in (0..k).rev() {
            if pick[i] < n - k + i {
                pick[i] += 1;
                for j in i + 1..k {
                    pick[j] = pick[j - 1] + 1;
                }
                return true;
            }
        }
        false
    }
    for (i, p) in pick.iter_mut().enumerate() {
        *p = i;
    }
    loop {
        let mut full = board.clone();
        full.extend(pick.iter().map(|&i| rest[i]));
        let values: Vec<_> = holes
            .iter()
            .map(|h| {
                let mut seven = h.clone();
                seven.extend(&full);
                evaluate(&seven).unwrap()
            })
            .collect();
        let best = *values.iter().max().unwrap();
        let winners = values.iter().filter(|&&v| v == best).count() as f64;
        for (e, v) in equity.iter_mut().zip(&values) {
            if *v == best {
                *e += 1.0 / winners;
            }
        }
        deals += 1;
        if need == 0 || !next(&mut pick, rest.len()) {
            break;
        }
    }
    equity.iter().map(|e| e / deals as f64).collect()
}

#[test]
fn flop_and_turn_spots_match_brute_force() {
    for (hands, board) in [
        (vec!["9s9d", "AsAh"], "2c7d9h"),
        (vec!["AhKh", "QsQd", "8c7c"], "2h7h9c"),
        (vec!["AhKh", "QsQd"], "2h7h9cTd"),
        (vec!["Ac2d", "As2h", "KcKd"], "3c4d5hJs"),
        (vec!["AcKd", "AsKh"], "2c3d8hJsQs"),
    ] {
        let r = exact(&hands, board);
        let bf = brute_force(&hands, board);
        for (p, e) in r.players.iter().zip(bf) {
            assert!(
                (p.equity - e).abs() < 1e-12,
                "{hands:?} {board}: {} vs {e}",
                p.equity
            );
        }
        let total: f64 = r.players.iter().map(|p| p.equity).sum();
        assert!((total - 1.0).abs() < 1e-12);
    }
    // The set is a big favourite on a dry flop; chopped river is a 100% tie.
    let r = exact(&["AcKd", "AsKh"], "2c3d8hJsQs");
    assert_eq!((r.players[0].tie, r.players[0].equity), (1.0, 0.5));
}

#[test]
fn random_seats_are_enumerated_exactly() {
    // One known hand against a random one on the river: C(45, 2) = 990 opponent hands.
    let spot = Spot::parse(&["AhAd", "random"], "Ac7d2s9h4c", "").unwrap();
    assert_eq!(spot.exact_outcomes(), 990);
    let r = equity_exact(&spot).unwrap();
    assert_eq!(r.trials, 990);
    // Count the opponent's 990 hands directly with the evaluator.
    let holes: Vec<Card> = spot.remaining().iter().collect();
    let board = parse_cards("Ac7d2s9h4c").unwrap();
    let hero = evaluate(&[&board[..], &parse_cards("AhAd").unwrap()[..]].concat()).unwrap();
    let (mut win, mut tie) = (0, 0);
    for i in 0..holes.len() {
        for j in i + 1..holes.len() {
            let villain = evaluate(&[&board[..], &[holes[i], holes[j]][..]].concat()).unwrap();
            if hero > villain {
                win += 1;
            } else if hero == villain {
                tie += 1;
            }
        }
    }
    assert_eq!(counts(&r, 0), (win, tie));
    assert_eq!(r.players[1].seat, Seat::Random);
}

#[test]
fn monte_carlo_agrees_with_exact_and_ignores_thread_count() {
    let spot = Spot::parse(&["AhKh", "QsQd"], "", "").unwrap();
    let truth = equity_exact(&spot).unwrap();
    let trials = 200_000;
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                equity_monte_carlo(
                    &spot,
                    &Inplace::new(),
                    Pcg64::seed_from_u64,
                    &config(trials, 3),
                )
                .unwrap()
            })
    };
    let mc = on(1);
    assert!(!mc.exact);
    assert_eq!(mc.trials, trials);
    assert_eq!(mc, on(4));
    // Standard error of an equity is at most 0.5 / sqrt(trials) ≈ 0.0011: allow 6 of them.
    for (m, t) in mc.players.iter().zip(&truth.players) {
        assert!(
            (m.equity - t.equity).abs() < 0.007,
            "{} vs {}",
            m.equity,
            t.equity
        );
    }
}

#[test]
fn auto_picks_exact_for_small_spaces() {
    let spot = Spot::parse(&["AhKh", "QsQd"], "", "").unwrap();
    let r = equity(
        &spot,
        &Inplace::new(),
        Pcg64::seed_from_u64,
        &config(1_000, 1),
    )
    .unwrap();
    assert!(r.exact);
    let spot = Spot::parse(&["AhKh", "random", "random", "random"], "", "").unwrap();
    let r = equity(
        &spot,
        &Inplace::new(),
        Pcg64::seed_from_u64,
        &config(20_000, 1),
    )
    .unwrap();
    assert!(!r.exact);
    assert_eq!(r.trials, 20_000);
    // Three random opponents all hold the same kind of hand: their equities are close.
    let total: f64 = r.players.iter().map(|p| p.equity).sum();
    assert!((total - 1.0).abs() < 1e-9);
}

#[test]
fn errors_never_panics() {
    let p = |hands: &[&str], board: &str, dead: &str| Spot::parse(hands, board, dead);
    let err = p(&["KsKd", "AsAx"], "", "").unwrap_err();
    assert!(matches!(err, PokerError::CardText { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "hand 2 \"AsAx\": invalid suit 'x' in \"Ax\": expected c, d, h or s"
    );
    let err = p(&["AsAh", "KsKd"], "2c 7x 9h", "").unwrap_err();
    assert!(err.to_string().starts_with("board \"2c 7x 9h\": "), "{err}");
    let err = p(&["AsAh", "KsKd"], "", "Zz").unwrap_err();
    assert!(err.to_string().starts_with("dead cards \"Zz\": "), "{err}");
    // The emoji form of the suits, as phones write "A♠️".
    assert_eq!(
        p(&["A\u{2660}\u{FE0F}A\u{2665}\u{FE0F}", "KsKd"], "", "").unwrap(),
        p(&["AsAh", "KsKd"], "", "").unwrap()
    );
    assert!(matches!(
        p(&["AsAh", "AsKd"], "", ""),
        Err(PokerError::DuplicateCard { .. })
    ));
    assert!(matches!(
        p(&["AsAs", "KsKd"], "", ""),
        Err(PokerError::DuplicateCard { .. })
    ));
    assert!(matches!(
        p(&["AsAh", "KsKd"], "2c3c4c", "4c"),
        Err(PokerError::DuplicateCard { .. })
    ));
    assert!(matches!(
        p(&["AsAh", "KsKd"], "Ah3c4c", ""),
        Err(PokerError::DuplicateCard { .. })
    ));
    assert!(matches!(
        p(&["AsAh", "KsKd"], "2c3c", ""),
        Err(PokerError::BoardSize { len: 2 })
    ));
    assert!(matches!(
        p(&["AsAh", "KsKd"], "2c3c4c5c6c7c", ""),
        Err(PokerError::BoardSize { len: 6 })
    ));
    assert!(matches!(
        p(&["AsAh"], "", ""),
        Err(PokerError::Players { players: 1 })
    ));
    assert!(matches!(
        p(&["random"; 10], "", ""),
        Err(PokerError::Players { players: 10 })
    ));
    assert!(matches!(
        p(&["AsAhKd", "KsKd"], "", ""),
        Err(PokerError::HoleCards { player: 1, len: 3 })
    ));
    let dead: String = fairdeal_cards::standard_deck()[..36]
        .iter()
        .map(|c| c.to_string())
        .collect();
    assert!(matches!(
        p(&["random"; 9], "", &dead),
        Err(PokerError::NotEnoughCards {
            needed: 23,
            available: 16
        })
    ));
    let big = p(&["random"; 9], "", "").unwrap();
    assert!(matches!(
        equity_exact(&big),
        Err(PokerError::TooManyOutcomes { .. })
    ));
    let spot = p(&["AsAh", "KsKd"], "", "").unwrap();
    assert!(matches!(
        equity_monte_carlo(&spot, &Inplace::new(), Pcg64::seed_from_u64, &config(0, 1)),
        Err(PokerError::NoTrials)
    ));
    // Refused before any work: a count the pot-share tally could not hold.
    assert!(matches!(
        equity_monte_carlo(
            &spot,
            &Inplace::new(),
            Pcg64::seed_from_u64,
            &config(MAX_EQUITY_TRIALS + 1, 1)
        ),
        Err(PokerError::TooManyTrials { .. })
    ));
}

fn config(trials: u64, seed: u64) -> EquityConfig<'static> {
    EquityConfig {
        trials,
        seed,
        progress: None,
        shard: None,
    }
}

/// Shards 1/3, 2/3 and 3/3 of a Monte Carlo run add up to exactly the whole run's tallies,
/// and `EquityTally::report` of the sum is the whole run's report.
#[test]
fn shards_add_up_to_the_whole_run() {
    let spot = Spot::parse(&["AsKs", "random", "random"], "", "").unwrap();
    let trials = 3 * fairdeal_poker::EQUITY_CHUNK + 5;
    let run = |config: &EquityConfig<'_>| {
        equity_monte_carlo(&spot, &Inplace::new(), Pcg64::seed_from_u64, config).unwrap()
    };
    let whole = run(&config(trials, 9));
    let mut sum = fairdeal_poker::EquityTally::default();
    for index in 1..=3 {
        let part = run(&EquityConfig {
            shard: Some(fairdeal_core::Shard::new(index, 3).unwrap()),
            ..config(trials, 9)
        });
        assert!(part.trials < trials);
        sum = sum.merge(part.tally);
    }
    assert_eq!(sum.report(&spot, false), whole);
}

/// Tallies read back from a report are checked: those of exact and Monte Carlo runs (split
/// pots among two and three players included) pass, and each identity broken alone fails.
#[test]
fn equity_tallies_are_checked() {
    let spots = [
        Spot::parse(&["AsKd", "AhKc"], "", "").unwrap(),
        Spot::parse(&["AsKs", "random", "QhQd"], "", "Jc").unwrap(),
        Spot::parse(&["Ac2d", "Ad2c", "Ah2s"], "", "").unwrap(),
    ];
    for spot in &spots {
        let players = spot.seats().len();
        let config = EquityConfig {
            trials: 20_000,
            seed: 5,
            progress: None,
            shard: None,
        };
        let mc = equity_monte_carlo(spot, &Inplace::new(), Pcg64::seed_from_u64, &config)
            .unwrap()
            .tally;
        assert!(
            mc.ties[..players].iter().any(|&t| t > 0),
            "no ties to check"
        );
        assert_eq!(mc.check(20_000, players), Ok(()));
        for (what, mut t) in [
            ("wins", mc),
            ("ties", mc),
            ("shares", mc),
            ("deals", mc),
            ("wins = u64::MAX", mc),
            ("an extra seat", mc),
        ] {
            match what {
                "wins" => t.wins[0] += 100_000,
                "ties" => t.ties[1] = 4 * t.ties[1] + 10,
                "shares" => t.shares[1] += 1,
                "deals" => t.deals += 1,
                "wins = u64::MAX" => t.wins[0] = u64::MAX,
                _ => t.wins[players] = 1,
            }
            assert!(t.check(20_000, players).is_err(), "{what} accepted");
        }
        assert!(mc.check(20_001, players).is_err());
        assert!(mc.check(20_000, 1).is_err() && mc.check(20_000, 10).is_err());
    }
    let exact = exact(&["AsAh", "KsKd"], "2c7d9h").tally;
    assert_eq!(exact.check(exact.deals, 2), Ok(()));
    assert_eq!(
        exact.checked_merge(exact).map(|t| t.deals),
        Some(2 * exact.deals)
    );
    let full = fairdeal_poker::EquityTally {
        deals: u64::MAX,
        ..Default::default()
    };
    assert_eq!(full.checked_merge(exact), None);
}
