//! Progress while a run goes: a bar on a terminal, a few plain lines otherwise (CI logs, pipes).

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

pub(crate) enum Progress {
    Bar(ProgressBar),
    Lines { label: &'static str, frames: u32, every: u32 },
    Quiet,
}

impl Progress {
    pub(crate) fn new(label: &'static str, frames: u32, quiet: bool) -> Self {
        if quiet {
            return Progress::Quiet;
        }
        if !std::io::stderr().is_terminal() {
            return Progress::Lines { label, frames, every: frames.div_ceil(4).max(1) };
        }
        let bar = ProgressBar::new(u64::from(frames));
        let style = ProgressStyle::with_template(
            "{prefix:>10} [{bar:32.cyan/blue}] {pos:>4}/{len} frames, {msg}",
        )
        .expect("a valid template")
        .progress_chars("=> ");
        bar.set_style(style);
        bar.set_prefix(label);
        Progress::Bar(bar)
    }

    /// Frame `frame` (from 0) is done, with `alive` particles left.
    pub(crate) fn frame(&mut self, frame: u32, alive: usize) {
        match self {
            Progress::Bar(bar) => {
                bar.set_position(u64::from(frame) + 1);
                bar.set_message(format!("{} alive", crate::thousands(alive as u64)));
            }
            Progress::Lines { label, frames, every } => {
                let done = frame + 1;
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

    pub(crate) fn finish(self) {
        if let Progress::Bar(bar) = self {
            bar.finish();
        }
    }
}
