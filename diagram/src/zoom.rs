//! The diagram's state as data: which level is shown, what was picked on the way down, which
//! cell has the keyboard focus; and what follows from it (the cells to draw, the breadcrumb,
//! the readout). Pure, so every rule is unit-tested without a browser.
//!
//! Levels, top down: the cluster (only with `@cluster`: super-tiles dealt round robin to
//! nodes), the grid (CTAs), the CTA (warps), the warp (lanes), the lane (one thread).
//! Invariants: `path` holds one picked index per level above the current one, each inside
//! its level; `focus` is a cell of the current level; a lane that holds no thread (the end of a
//! partial warp) is drawn but cannot be entered.

use compiler_core::hierarchy::{Dim3, FieldValue, LaneMask, LaunchShape};

/// The most cells one level draws along an axis: bigger launches are refused with a message
/// (the diagram teaches the addressing; 32 × 32 CTAs or 64 warps show it as well as more).
/// A one-dimensional grid longer than that is wrapped, [`WRAPPED_ROW`] CTAs a row, up to
/// [`MAX_GRID_EXTENT`]² of them.
pub const MAX_GRID_EXTENT: u32 = 32;
pub const WRAPPED_ROW: u32 = 16;
pub const MAX_WARPS: u32 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Cluster,
    Grid,
    Cta,
    Warp,
    Lane,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Cluster => "Cluster",
            Level::Grid => "Grid",
            Level::Cta => "CTA",
            Level::Warp => "Warp",
            Level::Lane => "Lane",
        }
    }
}

/// The experimental tier above the grid: `supertiles` super-tiles run on `nodes` nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cluster {
    pub nodes: u32,
    pub supertiles: u32,
}

impl Cluster {
    /// The node that runs super-tile `s` (the runners' rule).
    pub fn node_of(self, supertile: u32) -> u32 {
        compiler_core::hierarchy::node_of_supertile(supertile as usize, self.nodes as usize) as u32
    }
}

/// What the diagram draws: a launch, how lanes are labelled, and the optional cluster tier.
#[derive(Clone, Debug, PartialEq)]
pub struct DiagramConfig {
    pub shape: LaunchShape,
    /// The CTA level draws each warp as a slot of numbered lanes with the thread under each
    /// live lane (the glossary's occupancy view) instead of one box per warp.
    pub lane_labels: bool,
    pub cluster: Option<Cluster>,
    /// The level the diagram opens at (and Escape returns towards).
    pub start: Level,
    /// A description for screen readers, for presets that stand for a figure.
    pub alt: Option<String>,
}

impl Default for DiagramConfig {
    /// The hierarchy page's schematic: a 4 × 3 grid launched with `@launch(256)` on NVIDIA.
    fn default() -> Self {
        Self {
            shape: LaunchShape::SCHEMATIC,
            lane_labels: false,
            cluster: None,
            start: Level::Grid,
            alt: None,
        }
    }
}

/// The glossary's alt text for the partial-warp preset.
pub const PARTIAL_WARP_ALT: &str = "Two warp slots holding 48 threads. Lane numbers restart at \
zero in the second warp, so thread 32 is lane 0, and the last sixteen lane positions carry no \
thread at all.";

impl DiagramConfig {
    /// The glossary's occupancy stepper, preset partial-warp, lane labels on: a 48-thread CTA
    /// in two 32-lane warp slots.
    pub fn partial_warp() -> Self {
        Self {
            shape: LaunchShape {
                grid: Dim3::new(1, 1, 1),
                threads: 48,
                lanes: 32,
            },
            lane_labels: true,
            cluster: None,
            start: Level::Cta,
            alt: Some(PARTIAL_WARP_ALT.into()),
        }
    }

    /// The docs directive's parameters: `grid=4x3 threads=256 lanes=32 preset=partial-warp
    /// labels=lanes cluster=4x6` (nodes × super-tiles), any order, all optional.
    pub fn from_params(params: &str) -> Result<Self, String> {
        let mut config = DiagramConfig::default();
        let mut shape = config.shape;
        for word in params.split_whitespace() {
            let (key, value) = word
                .split_once('=')
                .ok_or_else(|| format!("`{word}` is not key=value"))?;
            let number = |text: &str| {
                text.parse::<u32>()
                    .map_err(|_| format!("`{key}={value}`: `{text}` is not a whole number"))
            };
            let pair = |text: &str| -> Result<(u32, u32), String> {
                let (a, b) = text.split_once('x').unwrap_or((text, "1"));
                Ok((number(a)?, number(b)?))
            };
            match key {
                "grid" => {
                    let (x, y) = pair(value)?;
                    shape.grid = Dim3::new(x, y, 1);
                }
                "threads" => shape.threads = number(value)?,
                "lanes" => shape.lanes = number(value)?,
                "labels" if value == "lanes" => config.lane_labels = true,
                "preset" if value == "partial-warp" => {
                    config = DiagramConfig::partial_warp();
                    shape = config.shape;
                }
                "preset" if value == "schematic" => {}
                "cluster" => {
                    let (nodes, supertiles) = pair(value)?;
                    config.cluster = Some(Cluster { nodes, supertiles });
                    config.start = Level::Cluster;
                }
                _ => return Err(format!("unknown diagram parameter `{word}`")),
            }
        }
        config.shape =
            LaunchShape::new(shape.grid, shape.threads, shape.lanes).map_err(|e| e.to_string())?;
        config.check()?;
        Ok(config)
    }

    /// What the diagram can draw: the launch limits of `LaunchShape`, and its own.
    pub fn check(&self) -> Result<(), String> {
        let shape = self.shape;
        let most = MAX_GRID_EXTENT * MAX_GRID_EXTENT;
        let long_row = shape.grid.y == 1 && shape.grid.x <= most;
        if !long_row && (shape.grid.x > MAX_GRID_EXTENT || shape.grid.y > MAX_GRID_EXTENT) {
            return Err(format!(
                "the diagram draws grids up to {MAX_GRID_EXTENT} × {MAX_GRID_EXTENT} CTAs, or a row of up to {most} (wrapped)"
            ));
        }
        if shape.warps() > MAX_WARPS {
            return Err(format!(
                "{} warps of {} lanes are too many to draw; the diagram draws up to {MAX_WARPS}",
                shape.warps(),
                shape.lanes
            ));
        }
        if let Some(c) = self.cluster {
            if c.nodes == 0 || c.supertiles == 0 || c.nodes > 16 || c.supertiles > 64 {
                return Err("a cluster has 1 to 16 nodes and 1 to 64 super-tiles".into());
            }
        }
        Ok(())
    }

    pub fn levels(&self) -> Vec<Level> {
        let mut levels = Vec::new();
        if self.cluster.is_some() {
            levels.push(Level::Cluster);
        }
        levels.extend([Level::Grid, Level::Cta, Level::Warp, Level::Lane]);
        levels
    }
}

/// Where the diagram is: the picks on the way down and the focused cell.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Zoom {
    pub path: Vec<u32>,
    pub focus: u32,
}

/// An arrow, Home or End.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    Left,
    Right,
    Up,
    Down,
    First,
    Last,
}

/// One cell of the current level.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub index: u32,
    pub column: u32,
    pub row: u32,
    /// What a screen reader announces, and the text drawn in the cell.
    pub label: String,
    /// A second line, smaller (thread range, thread ID, node).
    pub detail: String,
    /// Whether Enter or a click zooms into it.
    pub enterable: bool,
    /// For a warp: how many of its lanes hold a thread.
    pub filled: Option<(u32, u32)>,
}

impl Zoom {
    pub fn start(config: &DiagramConfig) -> Zoom {
        // Presets that open below the grid pick the first cell of each level above.
        let depth = config
            .levels()
            .iter()
            .position(|&l| l == config.start)
            .unwrap_or(0);
        Zoom {
            path: vec![0; depth],
            focus: 0,
        }
    }

    /// Zoomed all the way in on `thread` of CTA `block` (of the first super-tile, with a
    /// cluster), the focus on its lane; or why that thread is not in the launch.
    pub fn at(config: &DiagramConfig, block: Dim3, thread: u32) -> Result<Zoom, String> {
        let shape = config.shape;
        let located = shape.locate(block, thread).map_err(|e| e.to_string())?;
        let mut path = Vec::new();
        if config.cluster.is_some() {
            path.push(0);
        }
        path.extend([
            block.y * shape.grid.x + block.x,
            located.warp(),
            located.lane(),
        ]);
        Ok(Zoom { path, focus: 0 })
    }

    pub fn level(&self, config: &DiagramConfig) -> Level {
        let levels = config.levels();
        levels.get(self.path.len()).copied().unwrap_or(Level::Lane)
    }

    /// The pick made at `level`, if the diagram is below it.
    fn picked(&self, config: &DiagramConfig, level: Level) -> Option<u32> {
        let at = config.levels().iter().position(|&l| l == level)?;
        self.path.get(at).copied()
    }

    pub fn block(&self, config: &DiagramConfig) -> Option<Dim3> {
        let i = self.picked(config, Level::Grid)?;
        let x = config.shape.grid.x.max(1);
        Some(Dim3::new(i % x, i / x, 0))
    }

    pub fn warp(&self, config: &DiagramConfig) -> Option<u32> {
        self.picked(config, Level::Cta)
    }

    pub fn lane(&self, config: &DiagramConfig) -> Option<u32> {
        self.picked(config, Level::Warp)
    }

    pub fn supertile(&self, config: &DiagramConfig) -> Option<u32> {
        self.picked(config, Level::Cluster)
    }

    /// Columns of the current level's layout.
    pub fn columns(&self, config: &DiagramConfig) -> u32 {
        let shape = config.shape;
        match self.level(config) {
            // One column per node: super-tile s sits in column s % nodes, its node.
            Level::Cluster => config.cluster.map_or(1, |c| c.nodes),
            // A long one-dimensional grid wraps, in rows of 16 CTAs (labels stay readable).
            Level::Grid if shape.grid.x > MAX_GRID_EXTENT => WRAPPED_ROW,
            Level::Grid => shape.grid.x,
            Level::Cta if config.lane_labels => 1,
            Level::Cta => shape.warps().min(4),
            Level::Warp => shape.lanes.min(8),
            Level::Lane => 1,
        }
        .max(1)
    }

    pub fn cells(&self, config: &DiagramConfig) -> Vec<Cell> {
        let shape = config.shape;
        let columns = self.columns(config);
        let cell = |index: u32, label: String, detail: String, enterable: bool| Cell {
            index,
            column: index % columns,
            row: index / columns,
            label,
            detail,
            enterable,
            filled: None,
        };
        match self.level(config) {
            Level::Cluster => {
                let cluster = config.cluster.unwrap_or(Cluster {
                    nodes: 1,
                    supertiles: 1,
                });
                (0..cluster.supertiles)
                    .map(|s| {
                        cell(
                            s,
                            format!("Super-tile {s}"),
                            format!("node {}", cluster.node_of(s)),
                            true,
                        )
                    })
                    .collect()
            }
            Level::Grid => (0..shape.grid.x * shape.grid.y)
                .map(|i| {
                    let (x, y) = (i % shape.grid.x, i / shape.grid.x);
                    cell(i, format!("CTA ({x}, {y})"), format!("({x}, {y})"), true)
                })
                .collect(),
            Level::Cta => (0..shape.warps())
                .map(|w| {
                    let present = shape.lanes_in_warp(w).unwrap_or(0);
                    let first = w * shape.lanes;
                    let mut c = cell(
                        w,
                        format!("Warp {w}"),
                        format!("threads {first}–{}", first + present - 1),
                        true,
                    );
                    c.filled = Some((present, shape.lanes));
                    c
                })
                .collect(),
            Level::Warp => {
                let warp = self.warp(config).unwrap_or(0);
                let mask = shape
                    .active_mask(warp)
                    .unwrap_or(LaneMask { bits: 0, lanes: 0 });
                (0..shape.lanes)
                    .map(|l| {
                        let live = mask.contains(l);
                        let detail = if live {
                            format!("thread {}", warp * shape.lanes + l)
                        } else {
                            "no thread".into()
                        };
                        cell(l, format!("Lane {l}"), detail, live)
                    })
                    .collect()
            }
            Level::Lane => {
                let lane = self.lane(config).unwrap_or(0);
                let thread = self.warp(config).unwrap_or(0) * shape.lanes + lane;
                vec![cell(
                    0,
                    format!("Lane {lane}"),
                    format!("thread {thread}"),
                    false,
                )]
            }
        }
    }

    /// Moves the focus; it stays inside the level.
    pub fn step(&mut self, config: &DiagramConfig, m: Move) {
        let count = self.cells(config).len() as u32;
        if count == 0 {
            return;
        }
        let columns = self.columns(config);
        let last = count - 1;
        let f = self.focus.min(last);
        self.focus = match m {
            Move::Left if !f.is_multiple_of(columns) => f - 1,
            Move::Right if f % columns + 1 < columns && f < last => f + 1,
            Move::Up if f >= columns => f - columns,
            Move::Down if f + columns <= last => f + columns,
            Move::First => 0,
            Move::Last => last,
            _ => f,
        };
    }

    /// Zooms into cell `index` (the focused one for the keyboard); false if it cannot be
    /// entered (a lane with no thread, or the lane level itself).
    pub fn enter(&mut self, config: &DiagramConfig, index: u32) -> bool {
        let enterable = self
            .cells(config)
            .iter()
            .any(|c| c.index == index && c.enterable);
        if enterable {
            self.path.push(index);
            self.focus = 0;
        }
        enterable
    }

    /// One level up; the focus returns to the cell that was entered.
    pub fn exit(&mut self) -> bool {
        match self.path.pop() {
            Some(index) => {
                self.focus = index;
                true
            }
            None => false,
        }
    }

    /// Back to `depth` picks (a breadcrumb item).
    pub fn exit_to(&mut self, depth: usize) {
        while self.path.len() > depth {
            self.exit();
        }
    }

    /// "Grid › CTA (2, 1) › Warp 3 › Lane 17".
    pub fn breadcrumb(&self, config: &DiagramConfig) -> Vec<String> {
        let mut crumbs = Vec::new();
        for level in config.levels() {
            let text = match level {
                Level::Cluster => "Cluster".to_owned(),
                Level::Grid => match self.supertile(config) {
                    Some(s) => format!("Super-tile {s}: grid"),
                    None if config.cluster.is_some() => continue,
                    None => "Grid".to_owned(),
                },
                Level::Cta => match self.block(config) {
                    Some(b) => format!("CTA ({}, {})", b.x, b.y),
                    None => continue,
                },
                Level::Warp => match self.warp(config) {
                    Some(w) => format!("Warp {w}"),
                    None => continue,
                },
                Level::Lane => match self.lane(config) {
                    Some(l) => format!("Lane {l}"),
                    None => continue,
                },
            };
            crumbs.push(text);
        }
        crumbs
    }

    /// The eight `ctx` fields as far as the picks determine them.
    pub fn readout(&self, config: &DiagramConfig) -> Readout {
        let shape = config.shape;
        let block = self.block(config);
        let warp = self.warp(config);
        let lane = self.lane(config);
        if let (Some(b), Some(w), Some(l)) = (block, warp, lane) {
            if let Ok(thread) = shape.locate(b, w * shape.lanes + l) {
                return Readout {
                    rows: thread.explain(),
                    sentence: Some(thread.sentence()),
                    relation: Some(thread.relation()),
                    masks: vec![(w, thread.active_mask())],
                };
            }
        }
        // Above the lane level: the fields the picks fix, and the range of the others.
        let anchor = shape
            .locate(
                block.unwrap_or(Dim3::new(0, 0, 0)),
                warp.map_or(0, |w| w * shape.lanes),
            )
            .ok();
        let mut rows = anchor.map(|t| t.explain()).unwrap_or_default();
        let lanes = shape.lanes;
        for row in &mut rows {
            let range = |what: &str, from: u32, to: u32, why: &str| FieldValue {
                field: what.to_owned(),
                value: format!("{from} to {to}"),
                why: why.to_owned(),
            };
            let field = row.field.clone();
            *row = match (field.as_str(), block, warp) {
                (f, None, _) if f.starts_with("ctx.block.") => FieldValue {
                    field: f.to_owned(),
                    value: "—".into(),
                    why: "pick a CTA".into(),
                },
                ("ctx.thread", _, None) => {
                    range(&field, 0, shape.threads - 1, "every thread of a CTA")
                }
                ("ctx.thread", _, Some(w)) => {
                    let present = shape.lanes_in_warp(w).unwrap_or(1);
                    range(
                        &field,
                        w * lanes,
                        w * lanes + present - 1,
                        &format!("{w} * {lanes} to {w} * {lanes} + {}", present - 1),
                    )
                }
                ("ctx.warp", _, None) => range(&field, 0, shape.warps() - 1, "every warp of a CTA"),
                ("ctx.warp", _, Some(w)) => FieldValue {
                    field,
                    value: w.to_string(),
                    why: "the warp picked".into(),
                },
                ("ctx.lane", _, _) => range(&field, 0, lanes - 1, "every lane of a warp"),
                _ => row.clone(),
            };
        }
        // In a CTA with few warps, every warp's mask; once a warp is picked, its own.
        let masks = match (block, warp) {
            (_, Some(w)) => shape
                .active_mask(w)
                .ok()
                .map(|m| vec![(w, m)])
                .unwrap_or_default(),
            (Some(_), None) if shape.warps() <= 8 => (0..shape.warps())
                .filter_map(|w| shape.active_mask(w).ok().map(|m| (w, m)))
                .collect(),
            _ => Vec::new(),
        };
        Readout {
            rows,
            sentence: None,
            relation: None,
            masks,
        }
    }
}

/// What the readout beside the drawing says.
#[derive(Clone, Debug, PartialEq)]
pub struct Readout {
    pub rows: Vec<FieldValue>,
    /// "block (2, 1), warp 3, lane 17, thread 113", once a lane is picked.
    pub sentence: Option<String>,
    /// "113 = 3 * 32 + 17".
    pub relation: Option<String>,
    /// Active masks: of the picked warp, or of every warp of a picked CTA with few warps.
    pub masks: Vec<(u32, LaneMask)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(config: &DiagramConfig, keys: &[Move], enter: bool, zoom: &mut Zoom) {
        for &k in keys {
            zoom.step(config, k);
        }
        if enter {
            let focus = zoom.focus;
            assert!(zoom.enter(config, focus), "cannot enter {focus}");
        }
    }

    #[test]
    fn the_keyboard_reaches_the_worked_example() {
        let config = DiagramConfig::default();
        let mut zoom = Zoom::start(&config);
        assert_eq!(zoom.level(&config), Level::Grid);
        walk(
            &config,
            &[Move::Right, Move::Right, Move::Down],
            true,
            &mut zoom,
        );
        assert_eq!(zoom.block(&config), Some(Dim3::new(2, 1, 0)));
        walk(
            &config,
            &[Move::Right, Move::Right, Move::Right],
            true,
            &mut zoom,
        );
        assert_eq!(zoom.warp(&config), Some(3));
        walk(
            &config,
            &[Move::Down, Move::Down, Move::Right],
            true,
            &mut zoom,
        );
        assert_eq!(zoom.level(&config), Level::Lane);
        assert_eq!(
            zoom.breadcrumb(&config),
            ["Grid", "CTA (2, 1)", "Warp 3", "Lane 17"]
        );
        let readout = zoom.readout(&config);
        assert_eq!(
            readout.sentence.as_deref(),
            Some("block (2, 1), warp 3, lane 17, thread 113")
        );
        assert_eq!(readout.relation.as_deref(), Some("113 = 3 * 32 + 17"));
        assert!(readout
            .rows
            .iter()
            .any(|r| r.field == "ctx.warps" && r.value == "8" && r.why == "256 / 32"));
        assert!(readout
            .rows
            .iter()
            .any(|r| r.field == "ctx.lane" && r.value == "17" && r.why == "113 - 3 * 32"));
        // Escape three times: back to the grid, the focus on the CTA that was entered.
        assert!(zoom.exit() && zoom.exit() && zoom.exit());
        assert!(!zoom.exit());
        assert_eq!((zoom.level(&config), zoom.focus), (Level::Grid, 6));
    }

    #[test]
    fn a_thread_can_be_shown_directly() {
        let config = DiagramConfig::default();
        let zoom = Zoom::at(&config, Dim3::new(2, 1, 0), 113).unwrap_or_default();
        assert_eq!(
            zoom.breadcrumb(&config),
            ["Grid", "CTA (2, 1)", "Warp 3", "Lane 17"]
        );
        let outside = Zoom::at(&config, Dim3::new(2, 1, 0), 300);
        assert_eq!(
            outside,
            Err("thread 300 is outside the CTA: ctx.thread runs from 0 to 255".into())
        );
    }

    #[test]
    fn the_focus_stays_inside_its_level() {
        let config = DiagramConfig::default();
        let mut zoom = Zoom::start(&config);
        for m in [Move::Left, Move::Up] {
            zoom.step(&config, m);
            assert_eq!(zoom.focus, 0);
        }
        zoom.step(&config, Move::Last);
        assert_eq!(zoom.focus, 11);
        for m in [Move::Right, Move::Down] {
            zoom.step(&config, m);
            assert_eq!(zoom.focus, 11);
        }
        // Right at the end of a row does not wrap to the next row.
        zoom.focus = 3;
        zoom.step(&config, Move::Right);
        assert_eq!(zoom.focus, 3);
    }

    #[test]
    fn readouts_above_the_lane_give_ranges() {
        let config = DiagramConfig::default();
        let mut zoom = Zoom::start(&config);
        let field = |z: &Zoom, f: &str| {
            z.readout(&config)
                .rows
                .into_iter()
                .find(|r| r.field == f)
                .map(|r| r.value)
                .unwrap_or_default()
        };
        assert_eq!(field(&zoom, "ctx.block.x, ctx.block.y"), "—");
        assert_eq!(field(&zoom, "ctx.thread"), "0 to 255");
        assert_eq!(field(&zoom, "ctx.blocks.x, ctx.blocks.y"), "4, 3");
        zoom.enter(&config, 6);
        assert_eq!(field(&zoom, "ctx.block.x, ctx.block.y"), "2, 1");
        assert_eq!(field(&zoom, "ctx.warp"), "0 to 7");
        zoom.enter(&config, 3);
        assert_eq!(field(&zoom, "ctx.warp"), "3");
        assert_eq!(field(&zoom, "ctx.thread"), "96 to 127");
        assert_eq!(field(&zoom, "ctx.lane"), "0 to 31");
    }

    #[test]
    fn a_partial_warp_has_empty_lanes_that_cannot_be_entered() {
        let config = DiagramConfig::partial_warp();
        let mut zoom = Zoom::start(&config);
        assert_eq!(zoom.level(&config), Level::Cta);
        let warps = zoom.cells(&config);
        assert_eq!(warps.len(), 2);
        assert_eq!(warps[1].filled, Some((16, 32)));
        assert_eq!(warps[1].detail, "threads 32–47");
        assert!(zoom.enter(&config, 1));
        let lanes = zoom.cells(&config);
        assert_eq!(lanes.iter().filter(|c| !c.enterable).count(), 16);
        assert_eq!(lanes[0].detail, "thread 32");
        assert!(!zoom.enter(&config, 16));
        let masks = |z: &Zoom| -> Vec<(u32, String)> {
            z.readout(&config)
                .masks
                .into_iter()
                .map(|(w, m)| (w, m.to_string()))
                .collect()
        };
        assert_eq!(masks(&zoom), [(1, "0x0000ffff".to_owned())]);
        zoom.exit();
        assert_eq!(
            masks(&zoom),
            [(0, "0xffffffff".to_owned()), (1, "0x0000ffff".to_owned())]
        );
    }

    #[test]
    fn a_long_row_of_ctas_wraps_into_rows_of_16() {
        let config = match DiagramConfig::from_params("grid=40x1 threads=64") {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        };
        let mut zoom = Zoom::start(&config);
        assert_eq!(zoom.columns(&config), 16);
        let cells = zoom.cells(&config);
        assert_eq!(cells.len(), 40);
        let last = &cells[39];
        assert_eq!(
            (last.column, last.row, last.label.as_str()),
            (7, 2, "CTA (39, 0)")
        );
        // Down from CTA 19 is CTA 35, drawn below it; entering it picks block (35, 0, 0).
        zoom.focus = 19;
        zoom.step(&config, Move::Down);
        assert_eq!(zoom.focus, 35);
        zoom.enter(&config, 35);
        assert_eq!(zoom.block(&config), Some(Dim3::new(35, 0, 0)));
    }

    #[test]
    fn super_tiles_are_dealt_round_robin() {
        let config = match DiagramConfig::from_params("cluster=4x6 grid=2x2 threads=64") {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        };
        let zoom = Zoom::start(&config);
        assert_eq!(zoom.level(&config), Level::Cluster);
        let nodes: Vec<String> = zoom.cells(&config).into_iter().map(|c| c.detail).collect();
        assert_eq!(
            nodes,
            ["node 0", "node 1", "node 2", "node 3", "node 0", "node 1"]
        );
        let mut zoom = zoom;
        zoom.enter(&config, 5);
        assert_eq!(zoom.level(&config), Level::Grid);
        assert_eq!(zoom.breadcrumb(&config), ["Cluster", "Super-tile 5: grid"]);
    }

    #[test]
    fn directive_parameters_parse_or_say_why_not() {
        let parsed = DiagramConfig::from_params("grid=4x3 threads=256 lanes=32");
        assert_eq!(parsed, Ok(DiagramConfig::default()));
        assert_eq!(
            DiagramConfig::from_params("preset=partial-warp"),
            Ok(DiagramConfig::partial_warp())
        );
        for (bad, why) in [
            ("grid=4", ""),
            ("threads=0", "a CTA has 1 to 1024 threads"),
            ("grid=40x2", "up to 32 × 32"),
            ("grid=1025x1", "a row of up to 1024"),
            ("threads=1024 lanes=1", "too many to draw"),
            ("colour=red", "unknown diagram parameter"),
            ("threads", "not key=value"),
            ("lanes=x", "not a whole number"),
        ] {
            match DiagramConfig::from_params(bad) {
                Ok(_) if why.is_empty() => {}
                Ok(c) => panic!("{bad} parsed as {c:?}"),
                Err(e) => assert!(e.contains(why), "{bad}: {e}"),
            }
        }
    }
}
