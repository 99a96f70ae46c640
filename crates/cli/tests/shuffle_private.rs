//! `fairdeal shuffle` on input larger than `--memory`, watched from outside while it runs:
//! its spill files are private and anonymous (nothing to read for other users, nothing left
//! by SIGKILL or any other signal), a spill damaged under it is an error (exit 1, `-o` left
//! untouched), limits on descriptors shape the run instead of breaking it, and `-o` writes as
//! GNU `shuf -o` does (through symbolic links, keeping hard links and the mode, and in place
//! when its directory is read-only, checked as an unprivileged user).
#![cfg(target_os = "linux")]

mod common;

use common::Deadline as _;

use std::io::Write as _;
use std::os::unix::fs::{FileExt as _, MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Run, Scratch, fresh_dir, is_empty_dir};

const BIN: &str = env!("CARGO_BIN_EXE_fairdeal");

/// `count` records of 16 bytes, from `start`.
fn records(start: usize, count: usize) -> Vec<u8> {
    (start..start + count)
        .flat_map(|i| format!("record {i:08}\n").into_bytes())
        .collect()
}

/// The descriptors of process `pid` open on a deleted file under `dir`, with the file's
/// mode and size: its anonymous spill files.
fn spill_files(pid: u32, dir: &Path) -> Vec<(PathBuf, u32, u64)> {
    let Ok(entries) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let fd = entry.path();
        let Ok(target) = std::fs::read_link(&fd) else {
            continue;
        };
        let target = target.to_string_lossy().into_owned();
        if target.starts_with(&*dir.to_string_lossy())
            && target.ends_with(" (deleted)")
            && let Ok(meta) = std::fs::metadata(&fd)
        {
            found.push((fd, meta.permissions().mode() & 0o777, meta.len()));
        }
    }
    found
}

/// Starts `fairdeal ARGS` under `umask 000` (the most permissive) with a pipe as standard
/// input, and feeds it 4.8 MB: at `--memory 64K` it is then spilling, and every bucket has
/// outgrown its 64 KiB write buffer. The pipe stays open.
fn start_spilling(args: &[&str], dir: &Path) -> (Child, std::process::ChildStdin) {
    start_spilling_after(args, dir, "")
}

/// [`start_spilling`], with `shell` run first by the shell that starts it (e.g. a `trap`).
fn start_spilling_after(
    args: &[&str],
    dir: &Path,
    shell: &str,
) -> (Child, std::process::ChildStdin) {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("{shell}umask 000; exec \"$F\" \"$@\""))
        .arg("sh")
        .args(args)
        .env("F", BIN)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&records(0, 300_000)).unwrap();
    stdin.flush().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !spill_files(child.id(), dir).iter().any(|f| f.2 > 1 << 20) {
        assert!(Instant::now() < deadline, "no spill file appeared");
        std::thread::sleep(Duration::from_millis(10));
    }
    (child, stdin)
}

#[test]
fn spill_files_are_private_anonymous_and_one_per_level() {
    let t = fresh_dir("private-T");
    let (mut child, mut stdin) = start_spilling(
        &["shuffle", "--memory", "64K", "-T", t.to_str().unwrap()],
        &t,
    );
    let files = spill_files(child.id(), &t);
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0].1, 0o600, "mode under umask 000");
    assert!(is_empty_dir(&t), "a spill file has a name");
    stdin.write_all(&records(300_000, 1000)).unwrap();
    drop(stdin);
    let status = common::wait_with_deadline(&mut child);
    assert_eq!(status.code(), Some(0));
    assert!(is_empty_dir(&t));
}

#[test]
fn sigkill_and_other_signals_mid_spill_leave_no_file() {
    for (signal, number) in [("KILL", 9), ("QUIT", 3), ("USR1", 10), ("TERM", 15)] {
        let t = fresh_dir(&format!("kill-{signal}-T"));
        let o = fresh_dir(&format!("kill-{signal}-o"));
        let out = o.join("out.txt");
        let (mut child, stdin) = start_spilling(
            &[
                "shuffle",
                "--memory",
                "64K",
                "-T",
                t.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ],
            &t,
        );
        if common::skip_ignored_signal(child.id(), signal, number) {
            drop(stdin);
            common::wait_with_deadline(&mut child);
            continue;
        }
        let status = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status_deadline()
            .unwrap();
        assert!(status.success());
        // Waited for with the input still open: closed first, the run could read the end of
        // its input and exit 0 before the signal thread acts. The deadline ends a run that
        // survived the signal.
        let status = common::wait_with_deadline(&mut child);
        drop(stdin);
        assert_ne!(status.code(), Some(0), "SIG{signal}");
        assert!(is_empty_dir(&t), "SIG{signal} left a spill file");
        assert!(is_empty_dir(&o), "SIG{signal} left an output file");
    }
}

#[test]
fn an_inherited_ignored_signal_stays_ignored() {
    // As GNU sort: a job started with SIGQUIT or SIGUSR1 ignored (`trap '' ...`, or SIGINT and
    // SIGQUIT in a shell's background job) is not killed by them, though the program cleans
    // up on every other fatal signal.
    let t = fresh_dir("ignored-T");
    let (mut child, mut stdin) = start_spilling_after(
        &["shuffle", "--memory", "64K", "-T", t.to_str().unwrap()],
        &t,
        "trap '' QUIT USR1; ",
    );
    for (signal, number) in [("QUIT", 3), ("USR1", 10)] {
        assert!(common::ignores_signal(child.id(), number), "SIG{signal}");
        let status = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status_deadline()
            .unwrap();
        assert!(status.success());
    }
    stdin.write_all(&records(300_000, 1000)).unwrap();
    drop(stdin);
    let status = common::wait_with_deadline(&mut child);
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert!(is_empty_dir(&t));
}

/// Damage done to the spill through `/proc/PID/fd` (as a process of the same user, or a
/// disk error, could) before the shuffle reads it back.
/// `name` keeps the directories of tests running at the same time apart.
fn damaged_run(
    name: &str,
    args: &[&str],
    damage: impl FnOnce(&std::fs::File),
) -> (Run, (Scratch, PathBuf), Scratch) {
    let t = fresh_dir(&format!("damage-{name}-T"));
    let o = fresh_dir(&format!("damage-{name}-o"));
    let out = o.join("out.txt");
    std::fs::write(&out, b"previous content\n").unwrap();
    let mut all = vec![
        "shuffle",
        "-T",
        t.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    all.extend(args);
    let (child, mut stdin) = start_spilling(&all, &t);
    let files = spill_files(child.id(), &t);
    let spill = std::fs::OpenOptions::new()
        .write(true)
        .open(&files[0].0)
        .unwrap();
    damage(&spill);
    stdin.write_all(&records(300_000, 1000)).unwrap();
    drop(stdin);
    let output = common::output_with_deadline(child);
    let run = Run {
        status: output.status.code(),
        stdout: output.stdout,
        stderr: String::from_utf8(output.stderr).unwrap(),
    };
    (run, (o, out), t)
}

/// The scatter's spill (`--memory 64K`), and the spool of `-r` beyond the budget (whose 8
/// bytes per line of 301,000 lines need a few MiB).
const SPILLING: [&[&str]; 2] = [
    &["--memory", "64K"],
    &["-r", "-n", "200000", "--memory", "4M"],
];

#[test]
fn a_damaged_spill_is_exit_1_and_leaves_the_output_untouched() {
    for args in SPILLING {
        damaged_spill_is_refused(args);
    }
}

fn damaged_spill_is_refused(args: &[&str]) {
    for (what, damage) in [
        (
            "a changed byte",
            Box::new(|f: &std::fs::File| f.write_all_at(b"#", 100_000).unwrap())
                as Box<dyn FnOnce(&std::fs::File)>,
        ),
        (
            "a truncation",
            Box::new(|f: &std::fs::File| f.set_len(1000).unwrap()),
        ),
    ] {
        let (run, (_o, out), t) = damaged_run("refused", args, damage);
        let line = run.error();
        assert!(
            line.starts_with("fairdeal: error: temporary data in '")
                && line.contains("was damaged while the shuffle ran"),
            "{args:?}, {what}: {line}"
        );
        assert!(
            std::fs::read(&out).unwrap() == b"previous content\n",
            "{args:?}, {what}: the output was replaced"
        );
        assert_eq!(std::fs::read_dir(out.parent().unwrap()).unwrap().count(), 1);
        assert!(is_empty_dir(&t));
    }
}

#[test]
fn negative_control_an_undamaged_spill_gives_every_record() {
    let (run, (_o, out), _t) = damaged_run("control", SPILLING[0], |_| {});
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    let mut got: Vec<Vec<u8>> = std::fs::read(&out)
        .unwrap()
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    got.sort();
    let mut expected: Vec<Vec<u8>> = records(0, 301_000)
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    expected.sort();
    assert_eq!(got, expected);
}

#[test]
fn negative_control_an_undamaged_spool_gives_picks_of_the_input() {
    let (run, (_o, out), t) = damaged_run("spool-control", SPILLING[1], |_| {});
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    let input = records(0, 301_000);
    let known: std::collections::HashSet<&[u8]> = input.split(|&b| b == b'\n').collect();
    let got = std::fs::read(&out).unwrap();
    let picks: Vec<&[u8]> = got
        .strip_suffix(b"\n")
        .unwrap()
        .split(|&b| b == b'\n')
        .collect();
    assert_eq!(picks.len(), 200_000);
    assert!(picks.iter().all(|p| known.contains(p)));
    assert!(is_empty_dir(&t));
}

/// Runs a shell script with `$F` set to the binary, in `dir`.
fn sh(script: &str, dir: &Path) -> Run {
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("F", BIN)
        .stdin(Stdio::null())
        .output_deadline()
        .unwrap();
    Run {
        status: out.status.code(),
        stdout: out.stdout,
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

#[test]
fn sixteen_descriptors_are_enough_for_a_deep_external_shuffle() {
    let dir = fresh_dir("nofile");
    std::fs::write(dir.join("in.txt"), records(0, 100_000)).unwrap();
    std::fs::create_dir(dir.join("t")).unwrap();
    let script = "exec \"$F\" shuffle --small-memory --memory 4K -T t --seed 1 in.txt";
    let limited = sh(&format!("ulimit -n 16 && {script}"), &dir);
    assert_eq!(limited.status, Some(0), "{}", limited.stderr);
    assert!(limited.stderr.is_empty(), "{}", limited.stderr);
    let free = sh(script, &dir);
    assert_eq!(limited.stdout, free.stdout);
    assert_eq!(limited.stdout.len(), 1_600_000);
    assert!(is_empty_dir(&dir.join("t")));
}

#[test]
fn an_empty_tmpdir_means_tmp_not_the_current_directory() {
    let cwd = fresh_dir("empty-tmpdir");
    let mut child = Command::new(BIN)
        .args(["shuffle", "--memory", "64K"])
        .env("TMPDIR", "")
        .current_dir(&cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&records(0, 300_000)).unwrap();
    stdin.flush().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while spill_files(child.id(), Path::new("/tmp")).is_empty() {
        assert!(
            spill_files(child.id(), &cwd).is_empty(),
            "spilled in the cwd"
        );
        assert!(Instant::now() < deadline, "no spill file appeared in /tmp");
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(stdin);
    assert!(common::wait_with_deadline(&mut child).success());
}

#[test]
fn an_unusable_temporary_directory_is_named_once() {
    let dir = fresh_dir("unusable-T");
    std::fs::write(dir.join("in.txt"), records(0, 1000)).unwrap();
    let run = sh(
        "exec \"$F\" shuffle --small-memory --memory 1K -T /nonexistent/dir in.txt",
        &dir,
    );
    assert_eq!(run.status, Some(1));
    assert_eq!(
        run.stderr,
        "fairdeal: error: cannot create a temporary file in '/nonexistent/dir': No such file or \
         directory\n"
    );
}

#[test]
fn o_writes_through_a_symlink_to_its_target() {
    let dir = fresh_dir("o-symlink");
    std::fs::write(dir.join("target.txt"), b"1\n2\n3\n4\n5\n").unwrap();
    std::os::unix::fs::symlink("target.txt", dir.join("link.txt")).unwrap();
    let run = sh("exec \"$F\" shuffle -i 10-15 -o link.txt --seed 1", &dir);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    let meta = std::fs::symlink_metadata(dir.join("link.txt")).unwrap();
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    let mut lines: Vec<u32> = std::fs::read_to_string(dir.join("target.txt"))
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    lines.sort_unstable();
    assert_eq!(lines, (10..=15).collect::<Vec<_>>());
    // A dangling link: its target is created.
    std::os::unix::fs::symlink("new.txt", dir.join("dangling.txt")).unwrap();
    let run = sh("exec \"$F\" shuffle -i 1-3 -o dangling.txt", &dir);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    assert_eq!(std::fs::read(dir.join("new.txt")).unwrap().len(), 6);
    assert!(
        std::fs::symlink_metadata(dir.join("dangling.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn o_keeps_hard_links_and_the_mode_and_may_be_the_input() {
    let dir = fresh_dir("o-hardlink");
    let input = records(0, 5000);
    std::fs::write(dir.join("a.txt"), &input).unwrap();
    std::fs::hard_link(dir.join("a.txt"), dir.join("b.txt")).unwrap();
    std::fs::set_permissions(dir.join("a.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
    let inode = std::fs::metadata(dir.join("a.txt")).unwrap().ino();
    // The output is also the input, on both paths (in memory, external).
    for memory in ["1G", "4K"] {
        let run = sh(
            &format!("exec \"$F\" shuffle --small-memory --memory {memory} -o a.txt a.txt"),
            &dir,
        );
        assert_eq!(run.status, Some(0), "{}", run.stderr);
        let a = std::fs::read(dir.join("a.txt")).unwrap();
        assert_eq!(a, std::fs::read(dir.join("b.txt")).unwrap(), "link split");
        let mut sorted: Vec<&[u8]> = a.split_inclusive(|&b| b == b'\n').collect();
        sorted.sort_unstable();
        assert_eq!(sorted.concat(), input);
        let meta = std::fs::metadata(dir.join("a.txt")).unwrap();
        assert_eq!(meta.ino(), inode);
        assert_eq!(meta.nlink(), 2);
        assert_eq!(meta.permissions().mode() & 0o777, 0o640);
    }
    // One link: replaced atomically, keeping the mode.
    std::fs::write(dir.join("c.txt"), &input).unwrap();
    std::fs::set_permissions(dir.join("c.txt"), std::fs::Permissions::from_mode(0o604)).unwrap();
    let run = sh("exec \"$F\" shuffle -o c.txt c.txt", &dir);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    let meta = std::fs::metadata(dir.join("c.txt")).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o604);
    assert_eq!(meta.len(), input.len() as u64);
    // A new file: 0666 less the umask, as File::create.
    let run = sh("umask 027; exec \"$F\" shuffle -i 1-3 -o new.txt", &dir);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    let mode = std::fs::metadata(dir.join("new.txt"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o640);
    // No staging file is left.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

/// Runs `fairdeal ARGS` in `dir` as an unprivileged user, or `None` (printing why) where no
/// such user can be had.
fn as_nobody(args: &[&str], dir: &Path) -> Option<Run> {
    as_nobody_running(Path::new(BIN), args, dir)
}

/// [`as_nobody`] for `program` (e.g. a `shuf` link to the binary).
fn as_nobody_running(program: &Path, args: &[&str], dir: &Path) -> Option<Run> {
    let Some(prefix) = common::as_nobody() else {
        eprintln!("skipped: running as root without setpriv or runuser");
        return None;
    };
    let mut command = match prefix.split_first() {
        Some((first, rest)) => {
            let mut command = Command::new(first);
            command.args(rest).arg(program);
            command
        }
        None => Command::new(program),
    };
    let output = command
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .output_deadline()
        .expect("run fairdeal as nobody");
    Some(Run {
        status: output.status.code(),
        stdout: output.stdout,
        stderr: String::from_utf8(output.stderr).unwrap(),
    })
}

#[test]
fn o_in_a_read_only_directory_writes_a_writable_file_in_place() {
    // A writable file in a directory nobody may create files in: nothing can be staged
    // beside it, so it is written in place (GNU `shuf -o` succeeds too). Root may create files
    // anywhere, so the run is made as an unprivileged user.
    let dir = fresh_dir("o-read-only-dir");
    let rd = dir.join("rd");
    std::fs::create_dir(&rd).unwrap();
    let file = rd.join("w.txt");
    std::fs::write(&file, "1\n2\n3\n4\n5\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
    std::fs::set_permissions(&rd, std::fs::Permissions::from_mode(0o555)).unwrap();
    let sorted = |path: &Path| {
        let mut lines: Vec<u32> = std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| l.parse().unwrap())
            .collect();
        lines.sort_unstable();
        lines
    };
    let Some(run) = as_nobody(&["shuffle", "-i", "1-3", "-o", "rd/w.txt"], &dir) else {
        return;
    };
    run.ok();
    assert_eq!(sorted(&file), [1, 2, 3]);
    // The file is also the input (read whole before the first write truncates it), in
    // memory and through temporary files (in a directory of its own).
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o777)).unwrap();
    let lines: String = (1..=2000).map(|i| format!("{i}\n")).collect();
    for memory in ["1G", "1K"] {
        std::fs::write(&file, &lines).unwrap();
        let args = [
            "shuffle",
            "rd/w.txt",
            "-o",
            "rd/w.txt",
            "--small-memory",
            "--memory",
            memory,
            "-T",
            "tmp",
        ];
        as_nobody(&args, &dir).unwrap().ok();
        assert_eq!(
            sorted(&file),
            (1..=2000).collect::<Vec<_>>(),
            "--memory {memory}"
        );
    }
    assert!(is_empty_dir(&tmp));
    let names: Vec<_> = std::fs::read_dir(&rd)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["w.txt"], "nothing staged beside it");

    // Negative control: a file nobody may write either. The message names the user's file,
    // never a staging name.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let line = as_nobody(&["shuffle", "-i", "1-3", "-o", "rd/w.txt"], &dir)
        .unwrap()
        .error();
    assert_eq!(
        line,
        "fairdeal: error: cannot create output file 'rd/w.txt': Permission denied"
    );
    assert_eq!(sorted(&file).len(), 2000, "the file is untouched");
    std::fs::set_permissions(&rd, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn o_refuses_a_file_its_user_may_not_write() {
    // Probe row P3: in a directory it may write, a user's own file made read-only (0444) was
    // replaced by `-o` (a staged file renamed over it, content gone, exit 0). GNU `shuf -o`
    // opens the file and is refused: `shuf: ro.txt: Permission denied`, exit 1, file kept.
    let dir = fresh_dir("o-write-protected");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::write(dir.join("in.txt"), "a\nb\n").unwrap();
    let shuf = dir.join("shuf");
    std::os::unix::fs::symlink(BIN, &shuf).unwrap();
    let target = dir.join("ro.txt");
    let runs: [(&Path, &[&str], &str); 3] = [
        (
            Path::new(BIN),
            &["shuffle", "--seed", "1", "-o", "ro.txt", "in.txt"],
            "fairdeal: error: cannot create output file 'ro.txt': Permission denied\n",
        ),
        (
            Path::new(BIN),
            &["shuffle", "-i", "1-3", "-o", "ro.txt"],
            "fairdeal: error: cannot create output file 'ro.txt': Permission denied\n",
        ),
        (
            &shuf,
            &["-o", "ro.txt", "in.txt"],
            "ro.txt: Permission denied\n",
        ),
    ];
    for (program, args, message) in runs {
        std::fs::write(&target, "KEEP\n").unwrap();
        // The user's own file, as in the probe (root's would be refused for its owner).
        if common::as_nobody().is_some_and(|prefix| !prefix.is_empty()) {
            std::os::unix::fs::chown(&target, Some(65534), Some(65534)).unwrap();
        }
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o444)).unwrap();
        let Some(run) = as_nobody_running(program, args, &dir) else {
            return;
        };
        assert_eq!(run.status, Some(1), "{args:?}: {}", run.stderr);
        assert!(run.stderr.ends_with(message), "{args:?}: {}", run.stderr);
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            "KEEP\n",
            "{args:?}"
        );
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
}

#[test]
fn shuf_o_writes_the_file_in_place_as_gnu() {
    // GNU `shuf -o` opens the target (O_WRONLY|O_CREAT|O_TRUNC) once all input is read and
    // writes it in place: same inode, so the kernel checks the open (permissions,
    // fs.protected_symlinks). The personality staged and renamed a new inode over it.
    use std::os::unix::fs::MetadataExt as _;
    let dir = fresh_dir("shuf-o-inode");
    let shuf = dir.join("shuf");
    std::os::unix::fs::symlink(BIN, &shuf).unwrap();
    let target = dir.join("out.txt");
    std::fs::write(&target, "1\n2\n3\n").unwrap();
    let inode = std::fs::metadata(&target).unwrap().ino();
    let output = Command::new(&shuf)
        .args(["-o", "out.txt", "out.txt"])
        .current_dir(&dir)
        .output_deadline()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(std::fs::metadata(&target).unwrap().ino(), inode);
    let mut lines = std::fs::read_to_string(&target).unwrap();
    lines = {
        let mut v: Vec<&str> = lines.lines().collect();
        v.sort_unstable();
        v.join(",")
    };
    assert_eq!(lines, "1,2,3");
}
