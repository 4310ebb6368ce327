//! Pictures of the final state: a density map for the terminal, and an SVG of the particles
//! coloured by their `Colour` component.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::sim::{Dot, HEIGHT, WIDTH};

/// Shades from empty to crowded.
const SHADES: &[u8] = b" .:-=+*#%@";

/// A `columns` x `rows` map of where the particles are: each cell's shade grows with the square
/// root of its count. With `colour`, each cell is tinted with its particles' mean colour (ANSI 24-bit).
pub(crate) fn density_map(dots: &[Dot], columns: usize, rows: usize, colour: bool) -> String {
    let mut counts = vec![0_u32; columns * rows];
    let mut sums = vec![[0_u64; 3]; columns * rows];
    for dot in dots {
        let column = ((dot.x / WIDTH) * columns as f32) as usize;
        let row = ((1.0 - dot.y / HEIGHT) * rows as f32) as usize;
        let cell = row.min(rows - 1) * columns + column.min(columns - 1);
        counts[cell] += 1;
        for (sum, channel) in sums[cell].iter_mut().zip(dot.rgb) {
            *sum += u64::from(channel);
        }
    }
    let busiest = counts.iter().copied().max().unwrap_or(0).max(1);
    let mut map = String::new();
    for row in 0..rows {
        map.push_str("  |");
        for column in 0..columns {
            let cell = row * columns + column;
            let count = counts[cell];
            let shade = if count == 0 {
                0
            } else {
                let level =
                    (f64::from(count) / f64::from(busiest)).sqrt() * (SHADES.len() - 1) as f64;
                (level.ceil() as usize).clamp(1, SHADES.len() - 1)
            };
            let glyph = SHADES[shade] as char;
            if colour && count > 0 {
                let [r, g, b] = sums[cell].map(|sum| sum / u64::from(count));
                let _ = write!(map, "\x1b[38;2;{r};{g};{b}m{glyph}\x1b[0m");
            } else {
                map.push(glyph);
            }
        }
        map.push_str("|\n");
    }
    let _ = writeln!(map, "  +{}+", "-".repeat(columns));
    map
}

/// An SVG of at most `limit` particles (an even sample), each a dot of its colour on a dark
/// sky. Dots of one colour (to 4 bits per channel) share one path of zero-length segments with
/// round caps, which keeps the file small.
pub(crate) fn svg(dots: &[Dot], limit: usize, title: &str) -> String {
    const SCALE: f32 = 5.0;
    let step = dots.len().div_ceil(limit.max(1)).max(1);
    let mut paths: BTreeMap<[u8; 3], String> = BTreeMap::new();
    for dot in dots.iter().step_by(step) {
        let key = dot.rgb.map(|channel| channel >> 4);
        let path = paths.entry(key).or_default();
        let _ = write!(path, "M{:.1} {:.1}h0", dot.x * SCALE, (HEIGHT - dot.y) * SCALE);
    }
    let (width, height) = (WIDTH * SCALE, HEIGHT * SCALE);
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">"#
    );
    let _ = writeln!(svg, "<title>{title}</title>");
    let _ = writeln!(svg, r##"<rect width="100%" height="100%" fill="#0b0d17"/>"##);
    let _ = writeln!(
        svg,
        r#"<g fill="none" stroke-linecap="round" stroke-width="2.2" stroke-opacity="0.85">"#
    );
    for (key, path) in &paths {
        let [r, g, b] = key.map(|nibble| nibble * 17);
        let _ = writeln!(svg, r##"<path stroke="#{r:02x}{g:02x}{b:02x}" d="{path}"/>"##);
    }
    svg.push_str("</g>\n</svg>\n");
    svg
}
