//! The command line, parsed by hand: a handful of options do not need an argument-parsing crate
//! and its build time.

use std::ffi::OsString;
use std::fmt::Display;
use std::path::PathBuf;
use std::str::FromStr;

/// What the command line asks for.
#[derive(Clone, Debug)]
pub(crate) struct Options {
    /// Particles at the start.
    pub(crate) count: u32,
    /// Mean lifetime of a particle, in frames.
    pub(crate) lifetime: u16,
    /// Frames to simulate.
    pub(crate) frames: u32,
    /// Seed of the random generator.
    pub(crate) seed: u64,
    /// Threads for the motion and colour systems.
    pub(crate) threads: u16,
    /// Where to write the SVG picture, if anywhere.
    pub(crate) svg: Option<PathBuf>,
    /// At most this many particles in the SVG.
    pub(crate) svg_points: usize,
    /// Spawn each frame's particles with `spawn_batch` instead of one `spawn` each.
    pub(crate) batch: bool,
    /// Skip the baseline.
    pub(crate) no_baseline: bool,
    /// No progress output.
    pub(crate) quiet: bool,
}

/// What to do: run with these options, or print the help.
pub(crate) enum Command {
    Run(Options),
    Help,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            count: 400_000,
            lifetime: 200,
            frames: 200,
            seed: 1,
            threads: default_threads(),
            svg: None,
            svg_points: 20_000,
            batch: false,
            no_baseline: false,
            quiet: false,
        }
    }
}

impl Options {
    /// The most particles alive at once: storages are bounded to it.
    pub(crate) fn budget(&self) -> usize {
        self.count as usize + self.count as usize / 4 + 1
    }

    /// Particles spawned per frame: as many as expire on average.
    pub(crate) fn per_frame(&self) -> u32 {
        self.count.div_ceil(u32::from(self.lifetime))
    }
}

/// Every core with the `rayon` feature, else one thread.
fn default_threads() -> u16 {
    if cfg!(feature = "rayon") {
        std::thread::available_parallelism()
            .map_or(1, |n| u16::try_from(n.get()).unwrap_or(u16::MAX))
    } else {
        1
    }
}

/// The help text, `--help`.
pub(crate) fn help() -> String {
    let defaults = Options::default();
    format!(
        "\
A particle fountain on sparse-soa's derived storages, a group and queries, against a
Vec-of-structs baseline.

Usage: particles [OPTIONS]
       cargo run --release -p particles [--features rayon] -- [OPTIONS]

Options:
  -n, --count <N>          Particles at the start; about as many stay alive, as many spawn
                           each frame as expire (1 to 50,000,000) [default: {count}]
  -l, --lifetime <FRAMES>  Mean lifetime of a particle in frames (each lives from half to one
                           and a half times it); with --count it sets how many spawn and
                           expire per frame (10 to 20,000) [default: {lifetime}]
  -f, --frames <N>         Frames to simulate (at least 1) [default: {frames}]
  -s, --seed <SEED>        Seed of the random generator: the same seed gives the same run
                           [default: {seed}]
  -j, --threads <N>        Threads for the motion and colour systems (more than 1 needs the
                           rayon feature) [default: {threads}]
      --svg <FILE>         Write an SVG picture to FILE: the final state, each particle
                           coloured by its Colour, beside the frame times of both runs
      --svg-points <N>     At most this many particles in the SVG (an even sample)
                           [default: {svg_points}]
      --batch              Spawn each frame's particles with spawn_batch (two batches, the
                           moving ones and the sparks) instead of one spawn each: faster, but
                           the batches allocate their buffers
      --no-baseline        Skip the Vec-of-structs baseline (and the run on 10,000
                           particles beside it, which measures a spawn in the cache)
  -q, --quiet              No progress output
  -h, --help               Print this help

Build with `--features rayon` for --threads above 1. The demo ends with a density map of the
final state; --svg writes a picture.
",
        count = defaults.count,
        lifetime = defaults.lifetime,
        frames = defaults.frames,
        seed = defaults.seed,
        threads = defaults.threads,
        svg_points = defaults.svg_points,
    )
}

/// Parses the arguments after the program's name. `Err` holds the message of a usage error.
pub(crate) fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, String> {
    let mut options = Options::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let Some(arg) = arg.to_str() else {
            return Err(format!("unexpected argument '{}'", arg.to_string_lossy()));
        };
        // `--name=value` and `-nVALUE` carry their value; otherwise it is the next argument.
        let (flag, attached) = match arg.split_once('=') {
            Some((flag, value)) if arg.starts_with("--") => (flag, Some(value)),
            _ if !arg.starts_with("--") && arg.starts_with('-') && arg.len() > 2 => {
                arg.split_at_checked(2).map_or((arg, None), |(flag, value)| (flag, Some(value)))
            }
            _ => (arg, None),
        };
        let mut value = || match attached {
            Some(value) => Ok(OsString::from(value)),
            None => args.next().ok_or_else(|| format!("a value is required for '{flag}'")),
        };
        match flag {
            "-n" | "--count" => options.count = number(flag, &value()?, 1, 50_000_000)?,
            "-l" | "--lifetime" => options.lifetime = number(flag, &value()?, 10, 20_000)?,
            "-f" | "--frames" => options.frames = number(flag, &value()?, 1, u32::MAX)?,
            "-s" | "--seed" => options.seed = number(flag, &value()?, 0, u64::MAX)?,
            "-j" | "--threads" => options.threads = number(flag, &value()?, 1, u16::MAX)?,
            "--svg" => options.svg = Some(PathBuf::from(value()?)),
            "--svg-points" => options.svg_points = number(flag, &value()?, 1, usize::MAX)?,
            "--batch" | "--no-baseline" | "-q" | "--quiet" | "-h" | "--help"
                if attached.is_some() =>
            {
                return Err(format!("'{flag}' takes no value"));
            }
            "--batch" => options.batch = true,
            "--no-baseline" => options.no_baseline = true,
            "-q" | "--quiet" => options.quiet = true,
            "-h" | "--help" => return Ok(Command::Help),
            _ => return Err(format!("unexpected argument '{arg}'")),
        }
    }
    if options.threads > 1 && !cfg!(feature = "rayon") {
        return Err("--threads above 1 needs the rayon feature: \
                    cargo run --release -p particles --features rayon -- --threads 2"
            .to_owned());
    }
    Ok(Command::Run(options))
}

/// The number in `value`, which must lie in `low..=high`. Underscores are allowed between
/// digits (`1_000_000`).
fn number<T>(flag: &str, value: &OsString, low: T, high: T) -> Result<T, String>
where
    T: FromStr + PartialOrd + Display + Copy,
{
    let text = value.to_string_lossy();
    let invalid = |why: &str| format!("invalid value '{text}' for '{flag}': {why}");
    let number: T = text.replace('_', "").parse().map_err(|_| invalid("not a whole number"))?;
    if number < low || number > high {
        return Err(invalid(&format!("must be from {low} to {high}")));
    }
    Ok(number)
}

#[cfg(test)]
mod tests {
    use super::{Command, Options, parse};

    fn options(args: &[&str]) -> Result<Options, String> {
        match parse(args.iter().map(Into::into))? {
            Command::Run(options) => Ok(options),
            Command::Help => Err("help".to_owned()),
        }
    }

    #[test]
    fn every_form_of_a_value() {
        let parsed = options(&["-n", "1000", "--lifetime=50", "-f7", "--seed", "9", "-q"]).unwrap();
        assert_eq!((parsed.count, parsed.lifetime, parsed.frames, parsed.seed), (1000, 50, 7, 9));
        assert!(parsed.quiet && !parsed.no_baseline && !parsed.batch && parsed.svg.is_none());
        let parsed = options(&["--svg", "a=b.svg", "--svg-points=1_000", "--no-baseline"]).unwrap();
        assert_eq!(parsed.svg.unwrap().to_str(), Some("a=b.svg"));
        assert_eq!(parsed.svg_points, 1000);
        assert!(parsed.no_baseline);
        assert!(options(&["--batch"]).unwrap().batch);
        assert_eq!(options(&[]).unwrap().count, 400_000);
        assert_eq!(options(&["--help"]).unwrap_err(), "help");
        assert_eq!(options(&["-n", "5", "-h"]).unwrap_err(), "help");
    }

    #[test]
    fn usage_errors_name_the_argument() {
        let error = |args: &[&str]| options(args).unwrap_err();
        assert_eq!(error(&["--count"]), "a value is required for '--count'");
        assert_eq!(error(&["-n", "0"]), "invalid value '0' for '-n': must be from 1 to 50000000");
        assert_eq!(error(&["--frames=x"]), "invalid value 'x' for '--frames': not a whole number");
        assert_eq!(
            error(&["--lifetime", "-5"]),
            "invalid value '-5' for '--lifetime': not a whole number"
        );
        assert_eq!(error(&["--quiet=yes"]), "'--quiet' takes no value");
        assert_eq!(error(&["--batch=2"]), "'--batch' takes no value");
        assert_eq!(error(&["--colour"]), "unexpected argument '--colour'");
        assert_eq!(error(&["fast"]), "unexpected argument 'fast'");
    }
}
