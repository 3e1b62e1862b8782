/* Every patch of Bokeh's and Panel's browser code, in one place (pipeviz/compat.py
 * holds the server's). Both explorers install it: the page when it starts
 * (static/explorer.js), the served app through its A11y component
 * (pipeviz/served/glance.py). It twins nothing.
 *
 * install(versions) applies each patch once per page, only when its library is the
 * version it was written and measured against (Python hands over pipeviz.compat's
 * TESTED and the Panel it serves: compat.browser()), and returns the names applied.
 * With another version a patch stays out (said once on the console) and the explorer
 * runs on the library's own behaviour: slower, or with the library's own flaw, never
 * broken; one whose internals are not where it expects them is left out too, and
 * tests/test_browser_glance.py fails so that it is noticed. idle() says whether the
 * page has drawn its last change (the tests and benchmarks wait for it).
 *
 * Each keypress replaces some sources' data and repaints their plots, and Bokeh then
 * redoes, every time, work whose result is the same. Each figure is the patch's gain
 * at the sliders' maximum, interleaved (32, 128, 8), on the page: medians of 75-80
 * keypresses each way, in alternating rounds with and without the patch
 * (benchmarks/compat.py), timed inside the page: "repaint" every plot's repaint per
 * keypress, "data" Bokeh's handling of the new data before it. Measured on 7 December
 * on a shared 2-core machine at a load average of 8 to 12, when keypress to repaint
 * took 110-250 ms against 27 in a quiet hour: the figures are that much inflated.
 * A patch under 1 ms there is not kept (see the end of this comment).
 *
 *   patch      library  what the library does, and what the patch changes              gain at the maximum
 *   styles     Bokeh    it rewrites every renderer's position stylesheet on every       repaint 31.3 -> 25.7 ms
 *                       repaint, changed or not, and each write re-parses it and
 *                       restyles its view: a stylesheet is written only when its
 *                       text changes
 *   widths     Bokeh    it measures every label and tick label again with measureText   repaint 28.2 -> 22.4 ms
 *                       (20 us a call here), though the texts are the same few
 *                       numbers in the same font: a width is measured once per font
 *                       and text, and again once fonts finish loading (Bokeh caches a
 *                       font's metrics the same way, only once the font is there)
 *   css        Bokeh    it reads each visual's CSS override and each plot's font size   repaint 43.1 -> 27.1 ms,
 *                       with getComputedStyle at every paint, and each read after a     data 11.4 -> 4.6 ms
 *                       DOM change restyles the page first: a view's answer is kept
 *                       (none is set)
 *   variants   Bokeh    it brings five copies of every glyph (selected, dimmed,         repaint 37.3 -> 22.7 ms,
 *                       hovered, muted, decimated) up to date at every data change and  data 18.4 -> 3.9 ms
 *                       maps them at every paint: they are updated when a paint draws
 *                       one of them
 *   positions  Bokeh    it moves each renderer's (empty) element to its box during the  repaint 58.0 -> 38.1 ms
 *                       paint, and the next text drawn then restyles the page at once:
 *                       the elements are placed together a task after the repaint
 *   axes       Bokeh    it runs each axis's ticker four or five times a repaint and     repaint 46.9 -> 34.6 ms
 *                       measures its tick labels twice (once to ask whether the axis's
 *                       size changed, once to paint): an axis keeps its ticks and
 *                       extents while its plot repaints, for the bounds it has
 *   boxes      Bokeh    it sets every box's fill and line styles anew (colours turned   the boxes' own paint
 *                       into CSS and parsed again, a new dash array), though            9.0 -> 4.8 ms, repaint
 *                       neighbours share them: a style is set when it differs from the  35.9 -> 28.0 ms
 *                       previous box's, and a row's hatched bubbles are one path, at
 *                       the same pixels
 *   urls       Panel    its Location writes each new URL with history.pushState, so     a Back step per slider
 *                       every change of view was a Back step (in a course page's        step: gone (a behaviour,
 *                       iframe the course page's Back walked through them): the URL is  not timed)
 *                       replaced, as the page replaces its own
 *   uploads    Bokeh    its FileInput reads every chosen file whole, as base64, and     a choice over the limit:
 *                       sends it in one websocket message; past the server's 20 MB a    one line in the notice,
 *                       message the socket closes and the app stops answering: a        not a dead app (a
 *                       choice over the input's limit (a tag {pvMaxBytes}: the served   behaviour, not timed)
 *                       app's run card, view/run_view.py) is not read, and the server
 *                       is sent its names and sizes, to say what is wrong
 *
 * Measured and left out (under 1 ms at the maximum): hatches (the bubbles' hatch
 * pattern made again only when its constants change): HatchVector.update 1.0 -> 0.1
 * and 1.2 -> 0.1 ms in two runs at zb-v (32, 128, 2), whose bubbles are hatched;
 * sliders (a slider's own value not handed back to noUiSlider): _update_slider 0.8 ->
 * 0.3 and 0.7 -> 0.3 ms; labels (plain text labels filled with the context set once):
 * 0 ms, as no micro-batch number is drawn at the maximum (its boxes are narrower than
 * their numbers; 2.65 -> 1.40 ms at the defaults).
 */
(function (root) {
  'use strict';

  function module(name) {
    try { return root.Bokeh && root.Bokeh.require ? root.Bokeh.require(name) : null; } catch (e) { return null; }
  }

  // A visual's properties that decide what it draws, and whether each is one value
  // for every item (boxes take a constant visual's fast path).
  var FILL = ['fill_color', 'fill_alpha'];
  var HATCH = ['hatch_color', 'hatch_alpha', 'hatch_scale', 'hatch_pattern', 'hatch_weight'];
  function scalar(visual, names) { return names.every(function (n) { return visual[n].is_Scalar(); }); }

  function styles() {
    var dom = module('core/dom'), proto = dom && dom.InlineStyleSheet && dom.InlineStyleSheet.prototype;
    if (!proto || typeof proto._update !== 'function') return false;
    if (proto._update.pvQuiet) return true;
    var update = proto._update;
    proto._update = function (css) { if (!this.el || this.el.textContent !== css) update.call(this, css); };
    proto._update.pvQuiet = true;
    return true;
  }

  function widths() {
    var graphics = module('core/graphics'), fonts = root.document && root.document.fonts;
    if (!graphics || typeof graphics.text_width !== 'function' || !fonts) return false;
    if (graphics.text_width.pvMemo) return true;
    var measure = graphics.text_width, known = new Map(), loaded = new Map();
    var memo = function (text, font) {
      var ready = loaded.get(font);
      if (ready === undefined) {
        ready = fonts.check(font);
        if (ready) loaded.set(font, true);
      }
      if (!ready) return measure(text, font);
      var key = font + '\n' + text, width = known.get(key);
      if (width === undefined) {
        if (known.size >= 20000) known.clear();
        width = measure(text, font);
        known.set(key, width);
      }
      return width;
    };
    memo.pvMemo = true;
    graphics.text_width = memo; // Bokeh's modules call it through their exports, so all take this one
    fonts.addEventListener('loadingdone', function () { known.clear(); loaded.clear(); });
    return true;
  }

  // A visual's CSS override (--bk-text-color and the like), read with getComputedStyle
  // at every get of every visual property: each read after a DOM change restyles the
  // document first. Neither pipeviz, Panel nor Bokeh sets one of these properties
  // (tests/test_browser_glance.py holds that none of the page's stylesheets does), so
  // a view's answer is kept once its element is in the document.
  function css() {
    var visual = module('core/visuals/visual'), proto = visual && visual.VisualProperties && visual.VisualProperties.prototype;
    var plots = module('models/plots/plot_canvas'), plot = plots && plots.PlotView && plots.PlotView.prototype;
    var size = plot && Object.getOwnPropertyDescriptor(plot, 'base_font_size');
    if (!proto || typeof proto._get_css_value !== 'function' || !size || typeof size.get !== 'function') return false;
    if (proto._get_css_value.pvMemo) return true;
    var read = proto._get_css_value, kept = new WeakMap();
    var memo = function (name) {
      var el = this.obj && this.obj.el;
      if (!el || !el.isConnected) return read.call(this, name);
      var values = kept.get(el);
      if (values === undefined) kept.set(el, values = new Map());
      var key = this.css_prefix + name, value = values.get(key);
      if (value === undefined) values.set(key, value = read.call(this, name));
      return value;
    };
    memo.pvMemo = true;
    proto._get_css_value = memo;
    // The same for a plot's CSS font size (for text sized in em; pipeviz sizes text in
    // px), which the page's stylesheets set once (the same test holds it).
    var sizes = new WeakMap();
    Object.defineProperty(plot, 'base_font_size', {
      configurable: true,
      get: function () {
        if (!this.el || !this.el.isConnected) return size.get.call(this);
        var value = sizes.get(this.el);
        if (value === undefined || value === null) sizes.set(this.el, value = size.get.call(this));
        return value;
      },
    });
    return true;
  }

  // Every renderer keeps five copies of its glyph besides the one it draws (decimated,
  // selected, not selected, hovered, muted), and Bokeh brings all of them up to date
  // whenever the data change, and maps all of them at every repaint: six times the
  // visuals (the labels' text boxes six times over) for a picture that, with nothing
  // selected, muted or being dragged, draws only the first. The others are brought up
  // to date (data, visuals, then mapped) when a repaint is about to draw one of them:
  // a micro-batch followed (the ops selected), a pan or zoom in progress.
  function variants() {
    var mod = module('models/renderers/glyph_renderer'), proto = mod && mod.GlyphRendererView && mod.GlyphRendererView.prototype;
    if (!proto || ['set_data', 'set_visuals', 'map_data', '_update_masked_indices'].some(function (k) {
      return typeof proto[k] !== 'function';
    })) return false;
    if (proto.map_data.pvLazy) return true;
    var others = function (view) {
      return [view.decimated_glyph, view.selection_glyph, view.nonselection_glyph, view.hover_glyph, view.muted_glyph]
        .filter(function (g) { return g !== undefined && g !== null; });
    };
    var drawsOthers = function (view) {
      var doc = view.model.document;
      return !view.model.data_source.selected.is_empty() || view.model.muted || view.hover_glyph !== undefined &&
        view.hover_glyph !== null || (doc !== null && doc !== undefined && doc.interactive_duration() > 0);
    };
    var catchUp = function (view) {
      var stale = view.pvStale;
      if (!stale) return;
      view.pvStale = null;
      var source = view.model.data_source, all = view.all_indices;
      others(view).forEach(function (g) {
        // What set_data does to a copy happens before its first await (the copies
        // inherit the drawn glyph's arrays); what follows concerns arrow heads and WebGL.
        if (stale.data) g.set_data(source, all, stale.indices);
        g.set_visuals(source, all);
        g.after_visuals();
        g.after_lazy_visuals();
      });
    };
    proto.set_data = async function (indices) {
      var source = this.model.data_source;
      this.all_indices = this.model.view.indices;
      await this.glyph.set_data(source, this.all_indices, indices);
      this.pvStale = { data: true, indices: indices };
      await this.set_visuals();
      // The new mask's change signal asks for the visuals again; they are computed over
      // every row, mask or not, and were just made.
      this.pvMasking = true;
      try { this._update_masked_indices(); } finally { this.pvMasking = false; }
      var n = this.all_indices.count, step = this.plot_model.lod_factor;
      this.decimated = new (module('core/types').Indices)(n);
      for (var i = 0; i < n; i += step) this.decimated.set(i);
      this.plot_view.invalidate_dataranges = true;
    };
    proto.set_visuals = async function () {
      if (this.pvMasking) return;
      var source = this.model.data_source;
      this.glyph.set_visuals(source, this.all_indices);
      this.glyph.after_visuals();
      await this.glyph.after_lazy_visuals();
      this.pvStale = this.pvStale || { data: false };
    };
    var map = function () {
      this.glyph.map_data();
      if (!drawsOthers(this)) return;
      catchUp(this);
      others(this).forEach(function (g) { g.map_data(); });
    };
    map.pvLazy = true;
    proto.map_data = map;
    return true;
  }

  // Each renderer has an element of its own, placed over its bounding box by a
  // stylesheet that paint() rewrites whenever the box moves (a curtain, a label's
  // extent, or the last digit of a float recomputed). Each rewrite leaves the styles
  // dirty, and the next text drawn sets ctx.font, which on a canvas in the document
  // restyles the page at once: four restyles inside each repaint at the defaults,
  // 0.6 to 2 ms each. An element that holds nothing but its stylesheets shows no
  // pixel wherever it is, so it is placed once the repaint is over (one task later),
  // all together; one that shows something (a legend, HTML) is placed at once.
  function positions() {
    var mod = module('models/renderers/renderer'), proto = mod && mod.RendererView && mod.RendererView.prototype;
    if (!proto || typeof proto.update_position !== 'function') return false;
    if (proto.update_position.pvLater) return true;
    var update = proto.update_position, pending = new Set(), timer = null;
    placing.pending = pending;
    var bare = function (view) {
      var el = view.el, shadow = view.shadow_el;
      if (!el || !shadow || el.childElementCount !== 0) return false;
      for (var c = shadow.firstElementChild; c !== null; c = c.nextElementSibling) {
        if (c.tagName !== 'STYLE') return false;
      }
      return true;
    };
    var flush = function () {
      timer = null;
      var views = Array.from(pending);
      pending.clear();
      views.forEach(function (view) { if (!view.is_destroyed) update.call(view); });
    };
    var later = function () {
      if (!bare(this)) return update.call(this);
      pending.add(this);
      if (timer === null) timer = setTimeout(flush, 0);
    };
    later.pvLater = true;
    proto.update_position = later;
    return true;
  }

  // An axis runs its ticker and measures its tick labels several times a repaint: the
  // plot asks each side panel whether its size changed (the ticks, their labels made
  // and measured), then the axis paints with the same ticks and sizes made again, and
  // its tick and label extents ask for the ticks once more: four or five tickers and
  // two measures of every label, for one picture. A repaint is one synchronous call
  // that changes no model but the ranges a data range fits, so while a plot repaints,
  // an axis keeps its ticks and extents for the bounds it has (any range the repaint
  // refits gives new bounds, and both again); outside a repaint (a click on an axis)
  // they are made as Bokeh makes them.
  function axes() {
    var axis = module('models/axes/axis'), plot = module('models/plots/plot_canvas');
    var proto = axis && axis.AxisView && axis.AxisView.prototype, pv = plot && plot.PlotView && plot.PlotView.prototype;
    if (!proto || !pv || typeof pv.repaint !== 'function' || typeof pv.paint !== 'function') return false;
    var getter = function (name) {
      var d = Object.getOwnPropertyDescriptor(proto, name);
      return d && typeof d.get === 'function' ? d.get : null;
    };
    var ticks = getter('tick_coords'), extents = getter('extents');
    if (ticks === null || extents === null || getter('computed_bounds') === null) return false;
    if (ticks.pvKept) return true;
    var depth = 0, repaint = 0; // repaint: which repaint is under way, while depth > 0
    var during = function (paint) {
      return function () {
        if (depth++ === 0) repaint++;
        try { return paint.apply(this, arguments); } finally { depth--; }
      };
    };
    pv.repaint = during(pv.repaint);
    pv.paint = during(pv.paint);
    var keep = function (name, make) {
      var slot = 'pvKept_' + name;
      var get = function () {
        if (depth === 0) return make.call(this);
        var bounds = this.computed_bounds, range = this.ranges[0], loc = this.loc, k = this[slot];
        if (k !== undefined && k.repaint === repaint && k.start === bounds[0] && k.end === bounds[1] &&
            k.min === range.min && k.max === range.max && Object.is(k.loc, loc)) return k.value;
        var value = make.call(this);
        this[slot] = { repaint: repaint, start: bounds[0], end: bounds[1], min: range.min, max: range.max, loc: loc,
          value: value };
        return value;
      };
      get.pvKept = true;
      get.pvOriginal = make;
      Object.defineProperty(proto, name, { configurable: true, get: get });
    };
    keep('tick_coords', ticks);
    keep('extents', extents);
    return true;
  }

  // A box glyph (Quad, HBar, VBar, Block) draws each box with its visuals set anew: the
  // colour turned into a CSS string and parsed by the canvas, the line's width, join,
  // cap, dash and offset set again (a new dash array each time), a bounding box made to
  // give the rect: 5 us a box here, 6.5 ms a keypress for the timeline's 1340 boxes at
  // (32, 128, 8). Boxes with square corners and no hatching are drawn with the same
  // calls in the same order (path, rect, fill, stroke), each style set only when it
  // differs from the box before's: the same pixels. Hatched boxes with no outline (the
  // bubbles) are filled a row's run at a time (`hatched`): 1599 bubbles at zb-v
  // (32, 128, 2) with llama2-70b's uneven stages took 24.8 ms a keypress one by one.
  // Anything else is drawn as Bokeh draws it.
  function boxes() {
    var mod = module('models/glyphs/lrtb'), proto = mod && mod.LRTBView && mod.LRTBView.prototype;
    var colors = module('core/util/color'), lines = module('core/visuals/line');
    if (!proto || typeof proto._paint !== 'function' || !colors || typeof colors.color2css !== 'function' ||
        !lines || typeof lines.resolve_line_dash !== 'function') return false;
    if (proto._paint.pvFast) return true;
    var paint = proto._paint;
    // Hatched boxes without outlines, every style the same: the boxes of a row whose
    // pixels do not touch (same top and bottom, left to right, each a pixel clear of
    // the one before) make one path, filled and hatched once, as Bokeh fills and
    // hatches each: every pixel is covered by one box at most, so it gets the same
    // value. A box that breaks the run starts the next path.
    var hatched = function (ctx, indices, v, sl, sr, st, sb) {
      var min = Math.min, max = Math.max, floor = Math.floor, ceil = Math.ceil, n = 0, first = -1;
      var top = NaN, bottom = NaN, edge = -Infinity;
      var flush = function () {
        if (n > 0) {
          v.fill.apply(ctx, first);
          v.hatch.apply(ctx, first);
        }
        n = 0;
      };
      for (var it = 0; it < indices.length; it++) {
        var i = indices[it], l = sl[i], t = st[i], r = sr[i], b = sb[i];
        if (!isFinite(l + t + r + b)) continue;
        var x0 = min(l, r), y0 = min(t, b), x1 = max(l, r), y1 = max(t, b);
        if (n === 0 || y0 !== top || y1 !== bottom || floor(x0) < edge) {
          flush();
          ctx.beginPath();
          first = i;
          top = y0;
          bottom = y1;
        }
        ctx.rect(x0, y0, x1 - x0, y1 - y0);
        edge = ceil(x1) + 1;
        n++;
      }
      flush();
    };
    var square = function (r) {
      return r !== undefined && r !== null && r.top_left === 0 && r.top_right === 0 && r.bottom_right === 0 && r.bottom_left === 0;
    };
    var fast = function (ctx, indices, data) {
      var d = data || {}, pick = function (k) { return d[k] !== undefined ? d[k] : this[k]; }.bind(this);
      var radius = pick('border_radius'), v = this.visuals, fill = v.fill, line = v.line;
      if (!square(radius)) return paint.call(this, ctx, indices, data);
      var sl = pick('sleft'), sr = pick('sright'), st = pick('stop'), sb = pick('sbottom'), min = Math.min, max = Math.max;
      if (v.hatch.doit) {
        if (!line.doit && scalar(fill, FILL) && scalar(v.hatch, HATCH)) return hatched(ctx, indices, v, sl, sr, st, sb);
        return paint.call(this, ctx, indices, data);
      }
      var fc = fill.fill_color, fa = fill.fill_alpha, lc = line.line_color, la = line.line_alpha, lw = line.line_width;
      var lj = line.line_join, lp = line.line_cap, ld = line.line_dash, lo = line.line_dash_offset;
      var fKey = [], lKey = [];
      for (var it = 0; it < indices.length; it++) {
        var i = indices[it], l = sl[i], t = st[i], r = sr[i], b = sb[i];
        if (!isFinite(l + t + r + b)) continue;
        ctx.beginPath();
        var x0 = min(l, r), y0 = min(t, b);
        ctx.rect(x0, y0, max(l, r) - x0, max(t, b) - y0);
        var c = fc.get(i), a = fa.get(i);
        if (c != 0 && a != 0) { // FillVector.apply's test, as loose
          if (fKey.length === 0 || fKey[0] !== c || fKey[1] !== a) {
            ctx.fillStyle = colors.color2css(c, a);
            fKey = [c, a];
          }
          ctx.fill('nonzero');
        }
        c = lc.get(i); a = la.get(i);
        var w = lw.get(i);
        if (c != 0 && a != 0 && w != 0) {
          var j = lj.get(i), p = lp.get(i), dash = ld.get(i), off = lo.get(i);
          if (lKey.length === 0 || lKey[0] !== c || lKey[1] !== a || lKey[2] !== w || lKey[3] !== j || lKey[4] !== p ||
              lKey[5] !== dash || lKey[6] !== off) {
            ctx.strokeStyle = colors.color2css(c, a);
            ctx.lineWidth = w;
            ctx.lineJoin = j;
            ctx.lineCap = p;
            ctx.setLineDash(lines.resolve_line_dash(dash));
            ctx.lineDashOffset = off;
            lKey = [c, a, w, j, p, dash, off];
          }
          ctx.stroke();
        }
      }
    };
    fast.pvFast = true;
    fast.pvOriginal = paint; // tests/test_browser_glance.py draws with both and compares the pixels
    proto._paint = fast;
    return true;
  }

  // Whether the page is still on its way to the picture of its last change: a plot
  // waits for its repaint (Bokeh throttles them to a frame), or an element for its
  // place (positions, above). Until both are done, a view's elements can sit where
  // its last layout put them, past the page's width for a frame; the tests' settled()
  // and the benchmarks wait for idle().
  var waiting = new Set(), placing = { pending: null };

  function tracking() {
    var plot = module('models/plots/plot_canvas'), pv = plot && plot.PlotView && plot.PlotView.prototype;
    if (!pv || typeof pv.schedule_paint !== 'function' || typeof pv.repaint !== 'function') return false;
    if (pv.schedule_paint.pvTracked) return true;
    var schedule = pv.schedule_paint, repaint = pv.repaint;
    pv.schedule_paint = function () {
      if (!this.is_paused) waiting.add(this);
      return schedule.apply(this, arguments);
    };
    pv.schedule_paint.pvTracked = true;
    pv.repaint = function () {
      waiting.delete(this);
      return repaint.apply(this, arguments);
    };
    return true;
  }

  function idle() {
    var painting = Array.from(waiting).some(function (view) { return !view.is_destroyed && !view.is_paused; });
    return !painting && (placing.pending === null || placing.pending.size === 0);
  }

  // Panel's Location writes each new URL with history.pushState: every change of view
  // (each slider step) became a Back step, and in a course page's iframe the course
  // page's Back walked through them. The app's URL is replaced instead, as the page
  // replaces its own (static/explorer.js); before the document is idle, Panel's own
  // path keeps the URL for later, as it does.
  function uploads() {
    var mod = module('models/widgets/file_input'), proto = mod && mod.FileInputView && mod.FileInputView.prototype;
    if (!proto || typeof proto.load_files !== 'function') return false;
    if (proto.load_files.pvLimit) return true;
    var load = proto.load_files;
    var limited = function (files) {
      var max = null, total = 0, i;
      (this.model.tags || []).forEach(function (t) {
        if (t !== null && typeof t === 'object' && typeof t.pvMaxBytes === 'number') max = t.pvMaxBytes;
      });
      for (i = 0; i < files.length; i++) total += files[i].size;
      if (max === null || total <= max) return load.call(this, files);
      var names = [], kinds = [], values = [];
      for (i = 0; i < files.length; i++) {
        names.push(files[i].name);
        kinds.push('pipeviz/too-large;' + files[i].size); // view/run_view.py TOO_LARGE
        values.push('');
      }
      this.model.setv({ value: values, filename: names, mime_type: kinds });
      return Promise.resolve();
    };
    limited.pvLimit = true;
    proto.load_files = limited;
    return true;
  }

  function urls() {
    var models = root.Bokeh && root.Bokeh.Models, model = null;
    try { model = models && typeof models.get === 'function' ? models.get(LOCATION) : null; } catch (e) { model = null; }
    var view = model && model.prototype.default_view, proto = view && view.prototype;
    if (!proto || typeof proto._set_url_gated !== 'function' || typeof proto._ensure_idle_gate !== 'function') return false;
    if (proto._set_url_gated.pvReplace) return true;
    var gated = function (url) {
      this._ensure_idle_gate();
      if (!this._idle_ready) { this._pending_url = url; return; } // Panel's own path, before the page is idle
      root.history.replaceState(root.history.state, '', url);
      this.model.href = root.location.href;
    };
    gated.pvReplace = true;
    proto._set_url_gated = gated;
    return true;
  }
  var LOCATION = 'panel.models.location.Location'; // Panel's model, as Bokeh's registry names it

  // Each patch and the library whose internals it reaches into.
  var PATCHES = { styles: ['bokeh', styles], widths: ['bokeh', widths], css: ['bokeh', css],
    variants: ['bokeh', variants], positions: ['bokeh', positions], axes: ['bokeh', axes],
    boxes: ['bokeh', boxes], uploads: ['bokeh', uploads], urls: ['panel', urls] };
  var NAMES = Object.keys(PATCHES), warned = {};

  // versions: {tested: {bokeh, panel}, the versions every patch was written and measured
  // against (pipeviz/compat.py's TESTED), and panel: the installed Panel's version, or
  // null where the page runs no Panel}. Bokeh's own is Bokeh.version; Panel's bundle
  // has none a script can read, so Python says which Panel it serves. A patch applies
  // only when its library is the tested version; with another, it stays out (said
  // once on the console) and the explorer runs on the library's own behaviour.
  function install(versions) {
    var installed = { bokeh: root.Bokeh ? root.Bokeh.version : null, panel: versions.panel };
    var tested = function (library) {
      var have = installed[library], want = versions.tested[library];
      if (have === null || have === undefined) return false; // no such library on this page
      if (have !== want && !warned[library] && root.console) {
        warned[library] = true;
        root.console.warn('pipeviz: ' + library + ' ' + have + ' is not the tested ' + want + '; its patches are left out');
      }
      return have === want;
    };
    if (tested('bokeh')) tracking();
    // A name here is left out (benchmarks/compat.py's rounds without one patch).
    var without = [].concat(root.PIPEVIZ_COMPAT_WITHOUT || []);
    return NAMES.filter(function (name) {
      var patch = PATCHES[name];
      return without.indexOf(name) < 0 && tested(patch[0]) && patch[1]();
    });
  }

  var X = root.PipevizExplorer = root.PipevizExplorer || {};
  X.compat = { install: install, PATCHES: NAMES, LIBRARY: NAMES.reduce(function (out, name) {
    out[name] = PATCHES[name][0];
    return out;
  }, {}), idle: idle };
})(typeof window !== 'undefined' ? window : globalThis);
