//! The SVG picture (`--svg FILE`): the final state of the fountain beside the frame loop's cost
//! in both runs, with a legend of every colour, a title, and a caption saying what was run.
//!
//! Hand-written SVG on a solid dark card, so that it reads the same on a light or a dark page.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::cli::Options;
use crate::sim::{Dot, FOUNTAINS, HEIGHT, Palette, Report, SPARK_PALETTE, WIDTH};
use crate::thousands;

/// Pixels per arena unit: the fountain panel is 800 x 500.
const SCALE: f32 = 5.0;
/// The whole picture.
const CARD: (f32, f32) = (1280.0, 728.0);
/// Where the fountain panel's top left corner is.
const PANEL: (f32, f32) = (32.0, 104.0);
/// The chart's left edge (its labels) and right edge.
const CHART: (f32, f32) = (872.0, 1248.0);
/// Where the chart's bars start.
const BARS: f32 = 940.0;

const BACKGROUND: &str = "#0d1117";
const SKY: &str = "#05070c";
const RULE: &str = "#30363d";
const TEXT: &str = "#e6edf3";
const MUTED: &str = "#9198a1";
/// The bars of the sparse-soa run, and of the baseline.
const OURS: &str = "#f0b44c";
const THEIRS: &str = "#8b949e";
const FONT: &str =
    "ui-sans-serif, system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif";

/// The particles drawn: every `step`-th of the final state, so at most `limit`.
fn step(len: usize, limit: usize) -> usize {
    len.div_ceil(limit.max(1)).max(1)
}

/// How many particles of `len` the picture draws with at most `limit`.
pub(crate) fn drawn(len: usize, limit: usize) -> usize {
    len.div_ceil(step(len, limit))
}

/// The picture of a run: `ours`, and `baseline` if it ran (and ended in the same state).
pub(crate) fn svg(options: &Options, ours: &Report, baseline: Option<&Report>) -> String {
    let (width, height) = CARD;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="{FONT}">"#
    );
    let title = "sparse-soa particles: the fountain, and what its frame loop costs";
    let _ = writeln!(svg, "<title>{}</title>", escape(title));
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" rx="12" fill="{BACKGROUND}"/>"#);
    text(&mut svg, 32.0, 46.0, r#"font-size="24" font-weight="600""#, TEXT, title);
    text(&mut svg, 32.0, 76.0, r#"font-size="14""#, MUTED, &caption(options, ours));
    fountain(&mut svg, &ours.dots, options.svg_points);
    legend(&mut svg);
    chart(&mut svg, options, ours, baseline);
    svg.push_str("</svg>\n");
    svg
}

/// What was run, in facts that do not depend on the machine.
fn caption(options: &Options, ours: &Report) -> String {
    format!(
        "{} particles at the start (mean lifetime {} frames, so {} spawn a frame), {} frames, \
         seed {}, {} thread{}: {} alive at the end, {} of them drawn",
        thousands(u64::from(options.count)),
        options.lifetime,
        thousands(u64::from(options.per_frame())),
        options.frames,
        options.seed,
        options.threads,
        if options.threads == 1 { "" } else { "s" },
        thousands(ours.dots.len() as u64),
        thousands(drawn(ours.dots.len(), options.svg_points) as u64),
    )
}

/// The final state: every drawn particle a dot of its colour on a dark sky, and each fountain
/// marked on the floor. Dots of one colour (to 4 bits per channel) share one path of
/// zero-length segments with round caps, which keeps the file small.
fn fountain(svg: &mut String, dots: &[Dot], limit: usize) {
    let (left, top) = PANEL;
    let (width, height) = (WIDTH * SCALE, HEIGHT * SCALE);
    let mut paths: BTreeMap<[u8; 3], String> = BTreeMap::new();
    for dot in dots.iter().step_by(step(dots.len(), limit)) {
        let key = dot.rgb.map(|channel| channel >> 4);
        let path = paths.entry(key).or_default();
        let _ = write!(path, "M{:.1} {:.1}h0", dot.x * SCALE, (HEIGHT - dot.y) * SCALE);
    }
    let _ = writeln!(
        svg,
        r#"<clipPath id="sky"><rect width="{width}" height="{height}"/></clipPath>
<g transform="translate({left} {top})">
<rect width="{width}" height="{height}" fill="{SKY}"/>
<g clip-path="url(#sky)" fill="none" stroke-linecap="round" stroke-width="2.2" stroke-opacity="0.85">"#
    );
    for (key, path) in &paths {
        let colour = hex(key.map(|nibble| nibble * 17));
        let _ = writeln!(svg, r#"<path stroke="{colour}" d="{path}"/>"#);
    }
    svg.push_str("</g>\n");
    let _ = writeln!(
        svg,
        r#"<text x="12" y="24" font-size="13" fill="{MUTED}" stroke="{SKY}" stroke-width="3" paint-order="stroke">the final state: x across, height up</text>"#
    );
    // Each fountain: a notch on the floor in its palette's first colour.
    let palette = Palette::new();
    for (at, index) in FOUNTAINS {
        let notch = at * SCALE;
        let _ = writeln!(
            svg,
            r#"<path d="M{:.1} {height}l7 -10l7 10z" fill="{}" stroke="{BACKGROUND}"/>"#,
            notch - 7.0,
            hex(palette.shades(index)[0])
        );
    }
    let _ =
        writeln!(svg, r#"<rect width="{width}" height="{height}" fill="none" stroke="{RULE}"/>"#);
    svg.push_str("</g>\n");
}

/// What the particle colours mean: one strip per palette, from birth to death.
fn legend(svg: &mut String) {
    let palette = Palette::new();
    let (left, top) = (PANEL.0, PANEL.1 + HEIGHT * SCALE + 30.0);
    text(
        svg,
        left,
        top,
        r#"font-size="14""#,
        TEXT,
        "Particle colour (its Colour component): its fountain's hue, pale when young, deep and dark when old",
    );
    let strip = 112.0;
    let gap = (WIDTH * SCALE - strip * 6.0) / 5.0;
    let labels = FOUNTAINS
        .iter()
        .enumerate()
        .map(|(n, (at, index))| (format!("fountain {} (x = {at})", n + 1), *index))
        .chain([("sparks".to_owned(), SPARK_PALETTE)]);
    svg.push_str("<defs>\n");
    for (_, index) in labels.clone() {
        let shades = palette.shades(index);
        let _ = write!(svg, r#"<linearGradient id="palette{index}">"#);
        for stop in 0..=8 {
            let shade = shades[stop * (shades.len() - 1) / 8];
            let _ = write!(
                svg,
                r#"<stop offset="{}" stop-color="{}"/>"#,
                stop as f32 / 8.0,
                hex(shade)
            );
        }
        svg.push_str("</linearGradient>\n");
    }
    svg.push_str("</defs>\n");
    for (n, (label, index)) in labels.enumerate() {
        let x = left + n as f32 * (strip + gap);
        let _ = writeln!(
            svg,
            r#"<rect x="{x}" y="{}" width="{strip}" height="14" rx="3" fill="url(#palette{index})"/>"#,
            top + 12.0
        );
        text(svg, x, top + 44.0, r#"font-size="13""#, MUTED, &label);
    }
    text(
        svg,
        left,
        top + 68.0,
        r#"font-size="13""#,
        MUTED,
        "young \u{2192} old along each strip. Sparks have no Velocity: they hang still, burn out twice \
         as fast and flash white now and then. \u{25b2}: a fountain.",
    );
}

/// The frame loop's cost: per phase, one bar per run with its milliseconds, and the totals.
fn chart(svg: &mut String, options: &Options, ours: &Report, baseline: Option<&Report>) {
    let (left, right) = CHART;
    let mut y = PANEL.1 + 14.0;
    text(svg, left, y, r#"font-size="17" font-weight="600""#, TEXT, "Frame loop, ms per frame");
    y += 22.0;
    let hardware = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    text(
        svg,
        left,
        y,
        r#"font-size="13""#,
        MUTED,
        &format!(
            "shorter is faster; measured on {hardware} available core{}",
            if hardware == 1 { "" } else { "s" }
        ),
    );

    // Which bar is which.
    let runs: Vec<(&str, &str, [f64; 4])> = [
        Some(("sparse-soa: derived storages, groups, a query", OURS, ours)),
        baseline.map(|report| ("Vec<Particle>: one array of structs", THEIRS, report)),
    ]
    .into_iter()
    .flatten()
    .map(|(label, colour, report)| (label, colour, report.milliseconds_per_frame(options.frames)))
    .collect();
    y += 16.0;
    for (label, colour, _) in &runs {
        y += 20.0;
        let _ = writeln!(
            svg,
            r#"<rect x="{left}" y="{}" width="14" height="14" rx="2" fill="{colour}"/>"#,
            y - 11.5
        );
        text(svg, left + 22.0, y, r#"font-size="13""#, TEXT, label);
    }

    // The bars: spawn, update, remove, then the totals below a rule.
    let longest = runs.iter().flat_map(|(_, _, ms)| *ms).fold(f64::MIN_POSITIVE, f64::max);
    let room = f64::from(right - BARS - 48.0);
    let bar = 20.0;
    y += 8.0;
    for (phase, name) in ["spawn", "update", "remove", "total"].into_iter().enumerate() {
        y += if phase == 3 { 34.0 } else { 22.0 };
        if phase == 3 {
            let _ = writeln!(
                svg,
                r#"<line x1="{left}" x2="{right}" y1="{}" y2="{}" stroke="{RULE}"/>"#,
                y - 17.0,
                y - 17.0
            );
        }
        let weight = if phase == 3 { r#" font-weight="600""# } else { "" };
        let group = bar * runs.len() as f32 + 4.0 * (runs.len() - 1) as f32;
        text(svg, left, y + group / 2.0 + 5.0, &format!(r#"font-size="14"{weight}"#), TEXT, name);
        for (_, colour, ms) in &runs {
            let value = ms[phase];
            let length = (value / longest * room).max(1.0) as f32;
            let _ = writeln!(
                svg,
                r#"<rect x="{BARS}" y="{y}" width="{length:.1}" height="{bar}" rx="2" fill="{colour}"/>"#
            );
            let number = format!("{value:.2}");
            // On the bar when it fits, else just past its end.
            let fits = length > 7.5 * number.len() as f32 + 12.0;
            let (x, anchor, fill) = if fits {
                (BARS + length - 6.0, "end", BACKGROUND)
            } else {
                (BARS + length + 6.0, "start", TEXT)
            };
            let attributes = format!(r#"font-size="13" text-anchor="{anchor}"{weight}"#);
            text(svg, x, y + bar / 2.0 + 4.5, &attributes, fill, &number);
            y += bar + 4.0;
        }
        y -= 4.0;
    }

    summary(svg, y + 36.0, options, ours, baseline, &runs);
}

/// What the bars say, and what both runs checked, from `y` down.
fn summary(
    svg: &mut String,
    mut y: f32,
    options: &Options,
    ours: &Report,
    baseline: Option<&Report>,
    runs: &[(&str, &str, [f64; 4])],
) {
    let left = CHART.0;
    let mut lines = Vec::new();
    if let (Some(baseline), [(_, _, ours_ms), (_, _, theirs_ms)]) = (baseline, runs) {
        let ratio = |phases: &[usize]| {
            let sum = |ms: &[f64; 4]| phases.iter().map(|&phase| ms[phase]).sum::<f64>();
            sum(ours_ms) / sum(theirs_ms)
        };
        lines.push((TEXT, format!("sparse-soa takes {:.2}x the baseline's time", ratio(&[3]))));
        lines.push((
            MUTED,
            format!("({:.2}x in update, {:.2}x in spawn + remove)", ratio(&[1]), ratio(&[0, 2])),
        ));
        lines.push((TEXT, "Both runs end bit-identical: same particles,".to_owned()));
        lines.push((TEXT, "same positions, same colours.".to_owned()));
        lines.push((MUTED, "The Vec has no stable ids and no lookup by id.".to_owned()));
        lines.push((
            TEXT,
            format!(
                "Allocations in the frame loop: {} (baseline: {})",
                thousands(ours.allocations as u64),
                thousands(baseline.allocations as u64)
            ),
        ));
    } else {
        lines.push((MUTED, "The baseline was skipped (--no-baseline).".to_owned()));
        lines.push((
            TEXT,
            format!("Allocations in the frame loop: {}", thousands(ours.allocations as u64)),
        ));
    }
    if options.threads > 1 {
        lines.push((MUTED, "(counted on the main thread)".to_owned()));
    }
    for (colour, line) in lines {
        text(svg, left, y, r#"font-size="13""#, colour, &line);
        y += 20.0;
    }
}

/// A line of text at `x, y` (its baseline), escaped.
fn text(svg: &mut String, x: f32, y: f32, attributes: &str, fill: &str, content: &str) {
    let _ = writeln!(
        svg,
        r#"<text x="{x:.1}" y="{y:.1}" fill="{fill}" {attributes}>{}</text>"#,
        escape(content)
    );
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}
