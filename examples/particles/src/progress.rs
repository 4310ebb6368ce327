//! Progress while a run goes: a bar redrawn in place on a terminal, a few plain lines otherwise
//! (CI logs, pipes).

use std::io::{IsTerminal, Write as _};
use std::time::{Duration, Instant};

/// Cells of the bar.
const WIDTH: u32 = 32;
/// The bar is redrawn at most this often (and after the last frame).
const REDRAW: Duration = Duration::from_millis(50);

pub(crate) enum Progress {
    Bar { label: &'static str, frames: u32, drawn: Option<Instant> },
    Lines { label: &'static str, frames: u32, every: u32 },
    Quiet,
}

impl Progress {
    pub(crate) fn new(label: &'static str, frames: u32, quiet: bool) -> Self {
        if quiet {
            Progress::Quiet
        } else if std::io::stderr().is_terminal() {
            Progress::Bar { label, frames, drawn: None }
        } else {
            Progress::Lines { label, frames, every: frames.div_ceil(4).max(1) }
        }
    }

    /// Frame `frame` (from 0) is done, with `alive` particles left.
    pub(crate) fn frame(&mut self, frame: u32, alive: usize) {
        let done = frame + 1;
        match self {
            Progress::Bar { label, frames, drawn } => {
                if done < *frames && drawn.is_some_and(|at| at.elapsed() < REDRAW) {
                    return;
                }
                *drawn = Some(Instant::now());
                let filled = (u64::from(done) * u64::from(WIDTH) / u64::from(*frames)) as usize;
                let bar = if filled == WIDTH as usize {
                    "=".repeat(filled)
                } else {
                    format!("{}>{}", "=".repeat(filled), " ".repeat(WIDTH as usize - filled - 1))
                };
                // Back to the start of the line, the bar, then clear what a longer line left.
                eprint!(
                    "\r{label:>10} [{bar}] {done:>4}/{frames} frames, {} alive\x1b[K",
                    crate::thousands(alive as u64)
                );
                let _ = std::io::stderr().flush();
            }
            Progress::Lines { label, frames, every } => {
                if done % *every == 0 || done == *frames {
                    eprintln!(
                        "{label:>10}: frame {done}/{frames}, {} alive",
                        crate::thousands(alive as u64)
                    );
                }
            }
            Progress::Quiet => {}
        }
    }

    /// The run is over: a drawn bar keeps its line.
    pub(crate) fn finish(self) {
        if let Progress::Bar { drawn: Some(_), .. } = self {
            eprintln!();
        }
    }
}
