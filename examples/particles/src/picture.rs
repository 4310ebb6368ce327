//! The final state as a density map for the terminal (the SVG picture is in `figure`).

use std::fmt::Write as _;

use crate::sim::{Dot, HEIGHT, WIDTH};

/// Shades from empty to crowded.
const SHADES: &[u8] = b" .:-=+*#%@";

/// The shades of occupied cells, from few particles to many, as the map's heading lists them.
pub(crate) fn shade_legend() -> String {
    let shades: Vec<String> =
        SHADES[1..].iter().map(|&shade| char::from(shade).to_string()).collect();
    shades.join(" ")
}

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
