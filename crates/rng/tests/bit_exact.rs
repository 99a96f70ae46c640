//! The `java` and `python` backends against fixtures produced by the real `java` and `python3`
//! (programs and regeneration commands in `fixtures/`).

use fairdeal_core::{IndexSampler, Rng, Shuffler};
use fairdeal_inplace::Inplace;
use fairdeal_rng::backend::{Java, Python};
use fairdeal_rng::{Backend, JavaRandom, JavaSampler, PythonRandom, PythonSampler};

const JAVA_SHUFFLE: &str = include_str!("../fixtures/java_shuffle.txt");
const PYTHON_SHUFFLE: &str = include_str!("../fixtures/python_shuffle.txt");
const JAVA_STREAM: &str = include_str!("../fixtures/java_stream.txt");
const PYTHON_STREAM: &str = include_str!("../fixtures/python_stream.txt");

/// One fixture line of a shuffle file: `seed n v0 v1 … v(n-1)`.
struct ShuffleCase {
    seed: u64,
    expected: Vec<u32>,
}

fn shuffle_cases(text: &str) -> Vec<ShuffleCase> {
    let cases: Vec<ShuffleCase> = text
        .lines()
        .map(|line| {
            let mut fields = line.split_whitespace();
            let seed = fields.next().unwrap().parse().unwrap();
            let n: usize = fields.next().unwrap().parse().unwrap();
            let expected: Vec<u32> = fields.map(|v| v.parse().unwrap()).collect();
            assert_eq!(expected.len(), n, "malformed fixture line: {line}");
            ShuffleCase { seed, expected }
        })
        .collect();
    assert!(cases.len() >= 90, "fixture file looks truncated");
    cases
}

/// One fixture line of a stream file: `kind seed param v1 … v20`.
struct StreamCase<'a> {
    kind: &'a str,
    seed: u64,
    param: &'a str,
    values: Vec<&'a str>,
}

fn stream_cases(text: &str) -> Vec<StreamCase<'_>> {
    text.lines()
        .map(|line| {
            let mut fields = line.split_whitespace();
            StreamCase {
                kind: fields.next().unwrap(),
                seed: fields.next().unwrap().parse().unwrap(),
                param: fields.next().unwrap(),
                values: fields.collect(),
            }
        })
        .collect()
}

fn check_shuffles<B: Backend>(text: &str) {
    let shuffler = Inplace::with_sampler(B::Sampler::default());
    for case in shuffle_cases(text) {
        let n = case.expected.len() as u32;
        let mut list: Vec<u32> = (0..n).collect();
        shuffler.shuffle(&mut list, &mut B::seeded(case.seed));
        assert_eq!(
            list,
            case.expected,
            "{} seed {} n {n}",
            B::INFO.name,
            case.seed
        );
    }
}

#[test]
fn java_shuffles_match_collections_shuffle() {
    check_shuffles::<Java>(JAVA_SHUFFLE);
}

#[test]
fn python_shuffles_match_random_shuffle() {
    check_shuffles::<Python>(PYTHON_SHUFFLE);
}

/// The same shuffles through the `seeded` constructors of the static types, so library users
/// who never touch `Backend` get the same orders.
#[test]
fn static_types_match_the_backends() {
    for case in shuffle_cases(JAVA_SHUFFLE) {
        let mut list: Vec<u32> = (0..case.expected.len() as u32).collect();
        Inplace::with_sampler(JavaSampler)
            .shuffle(&mut list, &mut JavaRandom::new(case.seed as i64));
        assert_eq!(list, case.expected);
    }
    for case in shuffle_cases(PYTHON_SHUFFLE) {
        let mut list: Vec<u32> = (0..case.expected.len() as u32).collect();
        Inplace::with_sampler(PythonSampler).shuffle(&mut list, &mut PythonRandom::new(case.seed));
        assert_eq!(list, case.expected);
    }
}

#[test]
fn java_raw_streams_match_the_jdk() {
    let cases = stream_cases(JAVA_STREAM);
    assert_eq!(cases.len(), 100);
    for case in &cases {
        let mut rng = JavaRandom::new(case.seed as i64);
        let got: Vec<String> = match case.kind {
            "nextInt" => (0..20).map(|_| rng.next_int().to_string()).collect(),
            "nextLong" => (0..20)
                .map(|_| (rng.next_u64() as i64).to_string())
                .collect(),
            "nextIntBound" | "nextLongBound" => {
                let bound: usize = case.param.parse().unwrap();
                (0..20)
                    .map(|_| JavaSampler.index_below(&mut rng, bound).to_string())
                    .collect()
            }
            "nextBytes" => {
                let mut bytes = vec![0u8; case.param.parse().unwrap()];
                rng.fill_bytes(&mut bytes);
                bytes.iter().map(u8::to_string).collect()
            }
            other => panic!("unknown fixture kind {other}"),
        };
        assert_eq!(
            got, case.values,
            "{} seed {} param {}",
            case.kind, case.seed, case.param
        );
    }
}

#[test]
fn python_raw_streams_match_cpython() {
    let cases = stream_cases(PYTHON_STREAM);
    assert_eq!(cases.len(), 110);
    let mut checked = 0;
    for case in &cases {
        let mut rng = PythonRandom::new(case.seed);
        let got: Vec<String> = match (case.kind, case.param) {
            // The other widths are checked in the crate's unit tests (getrandbits is private).
            ("getrandbits", "32") => (0..20).map(|_| rng.next_u32().to_string()).collect(),
            ("getrandbits", "64") => (0..20).map(|_| rng.next_u64().to_string()).collect(),
            ("getrandbits", _) => continue,
            ("randbelow", bound) => {
                let bound: usize = bound.parse().unwrap();
                (0..20)
                    .map(|_| PythonSampler.index_below(&mut rng, bound).to_string())
                    .collect()
            }
            ("randbytes", len) => {
                let mut bytes = vec![0u8; len.parse().unwrap()];
                rng.fill_bytes(&mut bytes);
                bytes.iter().map(u8::to_string).collect()
            }
            (other, _) => panic!("unknown fixture kind {other}"),
        };
        assert_eq!(
            got, case.values,
            "{} seed {} param {}",
            case.kind, case.seed, case.param
        );
        checked += 1;
    }
    assert_eq!(checked, 90);
}
