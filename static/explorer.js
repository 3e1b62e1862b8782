/* The standalone page's explorer: widgets <-> state, engine, figures, readouts, URL.
 * It plays the role of pipeviz/served/ (the served explorer) and behaves the same:
 *
 *   one path per change   normalize the state (state.js), correcting widgets without
 *                         handling their echo; run the engine if a field it reads
 *                         changed; apply the figure view to the Bokeh models by name;
 *                         the notice (plain text) and the readout; then, after the
 *                         repaint, the comparison table, the bars' key and the URL
 *                         fragment (never an invalid state)
 *   presets               the `preset` menu, or preset= in the URL
 *   language              the `lang` buttons relabel every widget (PIPEVIZ_DATA.
 *                         widgetTexts), the figures' texts, readouts, notice and table
 *   URL                   query and fragment on load (the fragment wins), and again
 *                         on every `hashchange` (a course page retargeting its iframe)
 *
 * The page's CustomJS callbacks call PipevizExplorer.handle(doc, what, key) with what
 * "ready" (the document has rendered), "change" (the widget named `key` changed),
 * "resize" (the timeline's width changed), "zoom" (a pan or zoom of the time axis
 * ended; key is [x0, x1]: the timeline is levelled again), "edit" (Edit this
 * schedule) or "puzzle" (key is an action of the puzzle's block, static/puzzle_view.js). Bokeh runs them asynchronously, so a
 * widget's echo of our own correction arrives later: a change is handled only when
 * the widget's value differs from the explorer's state.
 */
(function (root) {
  'use strict';

  var T = root.PipevizText;
  var E = root.PipevizEngine;
  var X = root.PipevizExplorer;
  var DATA = root.PIPEVIZ_DATA;
  var FIELDS = X.fields.FIELDS;
  var ENGINE_FIELDS = DATA.rules.engineFields;
  var SOURCES = DATA.consts.sources; // the figures' sources a result fills (render/figures.SOURCES)
  var MV = X.memoryView;
  var CACHE_SIZE = 16; // engine results kept, as app.run_cached keeps 64 (they are larger here)

  function byId(id) { return root.document.getElementById(id); }

  // Deep equality of property values as Bokeh holds them (arrays, typed arrays, Maps,
  // plain objects), so that unchanged properties are not set again (each set repaints).
  function same(a, b) {
    if (a === b) return true;
    if (a instanceof Map) a = Object.fromEntries(a);
    if (b instanceof Map) b = Object.fromEntries(b);
    if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
    var arrayLike = function (v) { return Array.isArray(v) || ArrayBuffer.isView(v); };
    if (arrayLike(a) || arrayLike(b)) {
      if (!arrayLike(a) || !arrayLike(b) || a.length !== b.length) return false;
      for (var i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
      return true;
    }
    var ka = Object.keys(a), kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return ka.every(function (k) { return Object.prototype.hasOwnProperty.call(b, k) && same(a[k], b[k]); });
  }

  // The same columns with the same values as a source shows (Bokeh holds them as a
  // Map): then a new assignment would only make Bokeh process and repaint them again
  // (the bars at most new m, no stuck ops, no lines before balancing). The first
  // difference ends the comparison, so a changed source costs little more.
  function sameData(data, columns) {
    var names = Object.keys(columns), shown = data instanceof Map ? data : new Map(Object.entries(data));
    if (names.length !== shown.size) return false;
    return names.every(function (k) {
      var a = shown.get(k), b = columns[k];
      if (a === undefined || a.length !== b.length) return false;
      for (var i = 0; i < b.length; i++) {
        var x = a[i], y = b[i];
        if (x !== y && !(x !== x && y !== y) && !same(x, y)) return false; // NaN is NaN; a multi-line's arrays
      }
      return true;
    });
  }

  function configKey(cfg) {
    var c = cfg.costs, e = cfg.encoder;
    return JSON.stringify([cfg.schedule, cfg.P, cfg.m, cfg.V, cfg.G, c.tf, c.tb, c.tw, c.comm, c.tfb,
      e && [e.ef, e.eb, e.place, e.frozen], cfg.balance, cfg.stageWeights]);
  }

  function Explorer(doc) {
    var self = this;
    // Bokeh's get_model_by_name scans every model of the document, and the page's models
    // never change: look each name up once.
    var byName = new Map(), lookup = doc.get_model_by_name.bind(doc);
    doc.get_model_by_name = function (name) {
      var model = byName.get(name);
      if (model === undefined) {
        model = lookup(name);
        if (model !== null && model !== undefined) byName.set(name, model);
      }
      return model;
    };
    this.doc = doc;
    this.widgets = new Map(); // field -> its widget, for the fields the page shows
    FIELDS.forEach(function (f, name) {
      var w = doc.get_model_by_name(name);
      if (w) self.widgets.set(name, w);
    });
    this.values = X.fields.defaults(); // the state: one value per field
    this.widgets.forEach(function (w, name) { self.values[name] = self.read(name); });
    this.base = this.state(); // the view the page was built to open at: a URL is read against it
    this.result = null; // what the figures show: the last valid configuration
    this.problem = null; // why the state cannot be shown (a message), if it cannot
    this.notes = []; // what the rules adjusted; shown until the next change
    this.noticeLines = [];
    this.ready = false;
    this.urlHash = null; // the fragment last read or written here: any other is a new address, not yet read
    this.laterPending = false; // a deferred refresh is due or under way (Explorer.later)
    this.laterTimer = false;
    this.laterGen = 0;
    this.cache = new Map();
    this.tableRows = [null, [], null]; // [key, rows, the order of one's own they include]
    this.placesRows = [null, []]; // the encoder's placements compared (view/closing.py)
    this.tradeoffValues = null; // [key, values] of the trade-off view (static/tradeoff.js)
    this.memory = null; // the shown result's bytes (memory.js), why there are none (a message), or null
    this.memoryFor = null; // what this.memory was computed for (and from which result: this.memoryRes)
    this.memoryRes = null;
    this.resultState = this.state(); // the last valid state: the one the figures show
    this.drawn = {}; // source name -> what its columns were computed from
    this.window = null; // the timeline's zoom [x0, x1], null at the full view
    this.written = {}; // element id -> the HTML last written there
    this.shownLang = this.values.lang; // the page was built in this language
    this.renderers = null; // source name -> its renderers (renderersOf)
    this.lines = null; // the over-time lines unthinned (columns.figureView's lines)
    this.real = null; // a real run shown instead of the schedules: {rep, res, what} (static/run_view.js)
    this.runProblem = null; // why the files chosen last are not a run (a message), until the next change
    this.reading = 0; // files being read: a newer choice makes an older one's end change nothing
  }

  // The value a widget shows, as the field holds it.
  Explorer.prototype.read = function (name) {
    var f = FIELDS.get(name), w = this.widgets.get(name);
    if (f.kind === 'choice') return w.options !== undefined ? w.value : f.choices[w.active]; // a menu, or buttons
    // A one-box CheckboxGroup (frozen, balance, untied) or a Toggle (custom).
    if (f.kind === 'bool') return Array.isArray(w.active) ? w.active.indexOf(0) >= 0 : w.active;
    return w.value;
  };

  // Set widgets to the state's values. Their change callbacks come back later and
  // find nothing changed.
  Explorer.prototype.show = function (names) {
    var self = this;
    names.forEach(function (name) {
      var f = FIELDS.get(name), w = self.widgets.get(name), v = self.values[name];
      if (!w) return;
      if (f.kind === 'choice' && w.options !== undefined) w.value = v;
      else if (f.kind === 'choice') w.active = f.choices.indexOf(v);
      else if (f.kind === 'bool') w.active = Array.isArray(w.active) ? (v ? [0] : []) : v;
      else w.value = v;
    });
  };

  Explorer.prototype.state = function () { return Object.assign({}, this.values); };

  // A widget moved (the reader, or our own correction coming back).
  Explorer.prototype.changed = function (key) {
    if (key === 'preset') { // the prompt, or the preset the view already is (our own echo): nothing to do
      var name = this.doc.get_model_by_name('preset').value;
      if (name && name !== X.glance.matchingPreset(this.values)) this.applyPreset(name);
      return;
    }
    if (!this.widgets.has(key)) return;
    var v = this.read(key);
    if (v === this.values[key]) return;
    this.values[key] = v;
    this.handle([key], []);
  };

  // The one path of every change: make the state valid, then refresh once.
  // `moved`: fields that took new values without being asked for (a URL's unnamed
  // fields back at the page's opening view): the engine follows them, the rules do not.
  Explorer.prototype.handle = function (changed, notes, moved) {
    var out = X.state.normalize(this.values, changed), self = this;
    var fixes = Object.keys(out.state).filter(function (k) { return out.state[k] !== self.values[k]; });
    if (fixes.length) {
      this.values = out.state;
      this.show(fixes);
      changed = changed.concat(fixes.filter(function (k) { return changed.indexOf(k) < 0; }));
    }
    this.notes = notes.concat(out.notes);
    this.refresh(changed.concat((moved || []).filter(function (k) { return changed.indexOf(k) < 0; })));
  };

  // Apply several values at once (a preset, a URL), as one change; `named` (default:
  // all of them) are the ones asked for (served/session.Session.update).
  Explorer.prototype.update = function (updates, notes, named) {
    var self = this, names = Array.from(updates.keys());
    var moved = names.filter(function (k) { return updates.get(k) !== self.values[k]; });
    updates.forEach(function (v, k) { self.values[k] = v; });
    this.show(names);
    this.handle(named || names, notes || [], moved);
  };

  Explorer.prototype.applyPreset = function (name) {
    var preset = X.fields.PRESETS.get(name);
    if (preset !== undefined) this.update(new Map(Object.entries(preset)), []);
  };

  // Open the view a URL's query and fragment ask for, noting what was not valid.
  Explorer.prototype.applyQuery = function (search, fragment) {
    var parsed = X.fields.parse(search, fragment);
    this.update(X.fields.withBase(parsed.updates, this.base), parsed.notes, Array.from(parsed.updates.keys()));
  };

  // The result the state shows: the schedule's, or an order of one's own's when that
  // is shown (served/session.Session._run).
  Explorer.prototype.shown = function () {
    var v = this.values;
    if (X.puzzleView.shown(v)) { // a puzzle (static/puzzle_view.js)
      return this.cached(JSON.stringify(['puzzle', X.puzzleView.setupOf(v).key, v.moves]), function () {
        return X.puzzleView.run(v);
      });
    }
    if (!v.custom) return this.run(X.state.config(v));
    var c = X.state.config(v).costs;
    return this.cached(JSON.stringify(['own', v.order, v.placement, c.tf, c.tb, c.tw, c.comm, c.tfb]), function () {
      return E.custom.runOrder(X.state.readOrder(v.order, v.placement), c, v.placement);
    });
  };

  // The engine, with the last results kept (a slider often goes back and forth).
  Explorer.prototype.run = function (cfg) {
    return this.cached(configKey(cfg), function () { return E.run(cfg); });
  };

  Explorer.prototype.cached = function (key, compute) {
    var hit = this.cache.get(key);
    if (hit === undefined) {
      hit = compute();
      if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value);
    } else {
      this.cache.delete(key);
    }
    this.cache.set(key, hit);
    return hit;
  };

  Explorer.prototype.refresh = function (changed) {
    var lang = this.values.lang, res = this.result;
    if (this.real !== null && changed.some(function (k) { return RUN.leave.indexOf(k) >= 0; })) {
      this.real = null; // the schedules again (view/run_view.py LEAVE)
      this.notes.push(T.msg('run.off'));
    }
    if (this.real !== null) return this.showRun(lang);
    var runs = res === null || changed.some(function (k) { return ENGINE_FIELDS.indexOf(k) >= 0; });
    if (runs) {
      try {
        res = this.shown();
        this.problem = null;
      } catch (e) {
        if (!(e instanceof E.PipevizError && (e.type === 'ConfigError' || e.type === 'OrderError'))) throw e;
        this.problem = T.msg(e.key, e.args);
        res = null;
      }
    }
    if (res !== null && this.problem === null) { // a valid state: its bytes
      this.resultState = this.state();
      var key = configKey(res.config) + MV.memoryKey(this.resultState);
      // (an order of one's own has the config of any other with its P, m and V)
      if (key !== this.memoryFor || res !== this.memoryRes) { // a unit or language change keeps the bytes
        this.memoryFor = key;
        this.memoryRes = res;
        this.memory = MV.memoryOf(res, this.resultState);
      }
    }
    this.showNotice(lang, res);
    this.runButtons();
    this.setText('pv-summary', this.values.custom ? '' : T.template('sched.' + this.values.schedule + '.summary', lang));
    if (res !== null) {
      this.result = res;
      this.draw(res, lang);
      this.setHtml('pv-readout', X.readouts.readoutHtml(X.readouts.readoutValues(res), lang));
      this.setHtml('pv-closing', X.closing.closingHtml(X.closing.closingValues(res), lang));
      X.glance.drawn(this, res, lang); // the timeline's key, the ops table, the preset menu
      this.setHtml('pv-memory-readout', MV.memoryHtml(MV.memoryValues(this.memory), lang));
      this.setHidden('pv-memory-readout', this.memory === null);
      this.setHidden('pv-memory-key', this.memory === null);
    }
    if (this.shownLang !== lang) this.relabel(lang);
    X.puzzleView.drawn(this, res, lang); // the puzzle's block, and its part of the figures
    this.later();
  };

  // What is not valid or cannot finish (a warning) and what the rules adjusted
  // (notes), as plain text. `res` is the result about to be shown.
  Explorer.prototype.showNotice = function (lang, res) {
    var lines = [];
    if (this.problem !== null) {
      var shown = this.result ? describe(this.result.config, lang) : T.template('notice.nothing', lang);
      lines.push(T.fill('notice.invalid', lang, { why: this.problem, shown: shown }));
    }
    if (this.runProblem !== null) lines.push(T.text(this.runProblem, lang)); // the CLI's words for the files
    var deadlock = res ? res.deadlock || null : null;
    if (deadlock !== null) lines.push(E.errorText(deadlock, lang)); // drawn: the ops that ran, and the stuck ones
    this.notes.forEach(function (n) { lines.push(T.text(n, lang)); });
    this.noticeLines = lines;
    var bad = this.problem !== null || deadlock !== null || this.runProblem !== null;
    var notice = byId('pv-notice'), kind = bad ? 'warning' : 'info';
    if (!notice) return;
    var paragraphs = Array.from(notice.children).map(function (p) { return p.textContent; });
    if (!same(paragraphs, lines)) {
      notice.textContent = '';
      lines.forEach(function (line) {
        var p = root.document.createElement('p');
        p.textContent = line;
        notice.appendChild(p);
      });
    }
    var cls = 'pv-notice pv-' + kind, hidden = lines.length === 0;
    if (notice.className !== cls) notice.className = cls; // an unchanged write still restyles the page
    if (notice.hidden !== hidden) notice.hidden = hidden;
  };

  function describe(cfg, lang) {
    var name = cfg.schedule === E.custom.CUSTOM ? T.template('sched.' + cfg.schedule + '.title', lang) : cfg.schedule;
    return T.fill('notice.config', lang, { name: name, P: cfg.P, m: cfg.m, V: cfg.V });
  }

  // The timeline's plot width as laid out now (Figures.label_px).
  Explorer.prototype.labelPx = function () {
    var width = this.doc.get_model_by_name('timeline').inner_width;
    return (width ? width : DATA.consts.plotPx) / X.teach.labelScale(this.values);
  };

  // Assign the figure view to the models by name: a source only when what its
  // columns come from changed, a property only when its value did.
  Explorer.prototype.draw = function (res, lang) {
    var unit = this.values.unit, px = this.labelPx(), doc = this.doc, self = this;
    var mem = MV.isMemory(this.memory) ? this.memory : null, overTime = this.values.over_time_unit;
    var real = res.report !== undefined ? res.report : null;
    var view = real !== null ? X.runView.figureView(real, res, unit, lang, px)
      : X.columns.figureView(res, unit, lang, px, mem, overTime);
    var bytes = mem === null ? null : this.memoryFor;
    var from = {
      ops: [res, px, null], fb_halves: [res, px, null], stuck_ops: [res, lang], labels: [res, px, null], bubbles: [res, px, null],
      bars: [res, unit], steps: [res, overTime, bytes, px, null], steps_before: [res, overTime, bytes, px, null],
      memory_bars: [res, bytes], memory_over: [res, bytes, lang],
    };
    this.window = null; // the view's x_range opens at the full view
    this.lines = view.lines; // the over-time lines at every vertex, which a zoom thins again
    SOURCES.forEach(function (name) {
      if (same(self.drawn[name], from[name])) return;
      self.setSource(name, view.sources[name]);
      self.drawn[name] = from[name];
    });
    if (this.drawn.run !== res) { // the run's own sources: its model and communication, or none
      var own = real !== null ? view.sources : X.runView.emptySources();
      this.setSource('run_model', own.run_model);
      this.setSource('run_comm', own.run_comm);
      this.drawn.run = real !== null ? res : null;
    }
    Object.keys(view.props).forEach(function (name) {
      var model = doc.get_model_by_name(name), attrs = view.props[name], changes = {}, any = false;
      Object.keys(attrs).forEach(function (attr) {
        if (!same(model[attr], attrs[attr])) { changes[attr] = attrs[attr]; any = true; }
      });
      if (any) model.setv(changes);
    });
    X.teach.draw(this, res, lang); // the teaching models (static/teach.js)
    if (real !== null) { // a run's two rows a rank take more height than the teaching view gives a schedule
      var height = X.runView.runHeight(res.config.P);
      ['timeline', 'inflight'].forEach(function (name) {
        var model = doc.get_model_by_name(name);
        if (model.height !== height) model.height = height;
      });
    }
  };

  // New columns for a source, if they differ (each assignment makes Bokeh process and
  // repaint them); the renderers of a source in consts.hideEmpty show only while it has
  // rows (render/figures.py's Figures.set_source).
  Explorer.prototype.setSource = function (name, columns) {
    var source = this.doc.get_model_by_name(name);
    if (!sameData(source.data, columns)) source.data = columns;
    if (DATA.consts.hideEmpty.indexOf(name) < 0) return;
    var first = columns[Object.keys(columns)[0]], shown = first !== undefined && first.length > 0;
    this.renderersOf(name).forEach(function (r) { if (r.visible !== shown) r.visible = shown; });
  };

  Explorer.prototype.renderersOf = function (name) {
    if (this.renderers === null) {
      var found = new Map();
      ['timeline', 'inflight', 'over_time', 'memory'].forEach(function (fig) {
        this.doc.get_model_by_name(fig).renderers.forEach(function (r) {
          var src = r.data_source, key = src && src.name;
          if (!key) return;
          if (!found.has(key)) found.set(key, []);
          found.get(key).push(r);
        });
      }, this);
      this.renderers = found;
    }
    return this.renderers.get(name) || [];
  };

  // The timeline's width changed: the boxes and the micro-batch labels that fit change with it.
  Explorer.prototype.resized = function () { this.relevel(this.window); };

  // A pan or zoom ended: level the timeline again for what is visible (view/lod.py).
  Explorer.prototype.zoomed = function (win) {
    if (win && win[0] !== null && win[1] !== null && win[0] !== undefined && win[1] !== undefined) this.relevel(win);
  };

  Explorer.prototype.relevel = function (win) {
    if (this.result === null) return;
    var px = this.labelPx(), res = this.result, from = [res, px, win];
    var real = res.report !== undefined; // a run: its step in the upper row of each band (static/run_view.js)
    var fit = function (name, columns) {
      if (!real) return columns;
      var one = {};
      one[name] = columns;
      X.runView.upper(one);
      return one[name];
    };
    this.window = win;
    if (!same(this.drawn.ops, from)) {
      var boxes = X.columns.ops(res, px, win);
      this.setSource('ops', fit('ops', boxes));
      this.setSource('fb_halves', fit('fb_halves', X.columns.fbHalves(res, boxes)));
      this.drawn.ops = this.drawn.fb_halves = from;
    }
    if (!same(this.drawn.labels, from)) {
      this.setSource('labels', fit('labels', X.columns.labels(res, px, win)));
      this.drawn.labels = from;
    }
    if (!same(this.drawn.bubbles, from)) {
      this.setSource('bubbles', fit('bubbles', X.columns.bubbles(res, px, win)));
      this.drawn.bubbles = from;
    }
    var lines = this.drawn.steps ? this.drawn.steps.slice(0, 3).concat([px, win]) : null; // [res, overTime, bytes, px, win]
    if (this.lines !== null && lines !== null && !same(this.drawn.steps, lines)) {
      var thinned = X.columns.overTimeLines(this.lines, px, win || X.columns.fullWindow(res));
      this.setSource('steps', thinned.steps);
      this.setSource('steps_before', thinned.steps_before);
      this.drawn.steps = this.drawn.steps_before = lines;
    }
  };

  // Every word outside the figures in `lang`: widgets, the page's language, the table's title.
  Explorer.prototype.relabel = function (lang) {
    var doc = this.doc, texts = DATA.widgetTexts[lang];
    Object.keys(texts).forEach(function (name) {
      var model = doc.get_model_by_name(name);
      if (model) model.setv(texts[name]);
    });
    var page = root.document.querySelector('.pv-page');
    if (page) page.setAttribute('lang', lang);
    root.document.documentElement.setAttribute('lang', lang);
    var title = byId('pv-table-title');
    if (title) title.textContent = T.template('table.title', lang);
    // The head's link to the folded settings, their column's name and the bar's (page_document.TEMPLATE).
    var more = T.template('group.more', lang);
    this.setText('pv-more-link', more);
    var aside = byId('pv-more'), bar = root.document.querySelector('.pv-bar');
    if (aside) aside.setAttribute('aria-label', more);
    if (bar) bar.setAttribute('aria-label', T.template('bar.label', lang));
    X.glance.relabel(lang);
    this.runRelabel(lang);
    this.shownLang = lang;
  };

  Explorer.prototype.setText = function (id, text) {
    var node = byId(id);
    if (node && node.textContent !== text) node.textContent = text;
  };

  Explorer.prototype.setHidden = function (id, hidden) {
    var node = byId(id);
    if (node && node.hidden !== hidden) node.hidden = hidden;
  };

  // Write only what changed: each write makes the browser restyle the page.
  Explorer.prototype.setHtml = function (id, html) {
    var node = byId(id);
    if (node && this.written[id] !== html) {
      node.innerHTML = html;
      this.written[id] = html;
    }
  };

  // The table, the bars' key, the sweep and the URL LATER_MS after a change (once,
  // however many changes come in between: view/state.py), so a slider's chart and
  // readout are not kept waiting and a drag does not repaint them every step.
  // The table runs the engine for every schedule, and at the sliders' ends one run
  // takes tens of ms: each slice of the refresh, its own task, does one run not done
  // yet in this refresh and ends at the next (the runs done are kept for the next
  // slice whatever the cache evicts). A key pressed meanwhile waits for one run, not
  // the whole table (the browser runs input before timers). A change between slices
  // stops the chain; its own timer starts the refresh again (pipeviz/slicing.py).
  var SLICED = {}; // thrown by a slice's second new run

  Explorer.prototype.later = function () {
    var self = this;
    this.laterGen++;
    this.laterPending = true;
    if (this.laterTimer) return;
    this.laterTimer = true;
    root.setTimeout(function () { self.laterTimer = false; self.slice(self.laterGen, new Map()); }, DATA.rules.laterMs);
  };

  // `done`: configKey -> what its run gave ({res} or {error}) in this refresh.
  Explorer.prototype.slice = function (gen, done) {
    var self = this, ran = false;
    if (gen !== this.laterGen) return; // a newer change: its own timer runs the refresh
    // What this refresh or the cache holds already, without running (the trade-off's points so far).
    var ready = function (cfg) {
      var key = configKey(cfg), got = done.get(key);
      if (got !== undefined) return got.res === undefined ? null : got.res;
      var hit = self.cache.get(key);
      return hit === undefined ? null : hit;
    };
    try {
      this.secondary(function (cfg) {
        var key = configKey(cfg), got = done.get(key);
        if (got === undefined) {
          if (ran) throw SLICED;
          ran = true;
          try { got = { res: self.run(cfg) }; } catch (e) { got = { error: e }; }
          done.set(key, got);
        }
        if (got.error !== undefined) throw got.error;
        return got.res;
      }, ready);
    } catch (e) {
      if (e !== SLICED) throw e;
      root.setTimeout(function () { self.slice(gen, done); }, 0);
      return;
    }
    this.laterPending = false;
  };

  // `run` (cfg -> result) runs the engine for the table and the placements: the
  // explorer's cached run unless a slice (Explorer.slice) passes its own.
  Explorer.prototype.secondary = function (run, ready) {
    var res = this.result, lang = this.values.lang, self = this;
    run = run || function (cfg) { return self.run(cfg); };
    if (this.real !== null) {
      var r = this.real;
      this.setHtml('pv-table', X.runView.whatifHtml(r.what === null ? null : X.runView.whatifValues(r.rep, r.what), lang));
      this.setHtml('pv-bars-key', X.readouts.barsKeyHtml(r.res.order.hasW, lang, false));
      this.setHtml('pv-places', '');
    } else if (res !== null) {
      var shown = this.resultState, own = res.theory === null ? res : null;
      var key = configKey(res.config) + MV.memoryKey(shown) + JSON.stringify([shown.stages, shown.weights]);
      if (this.tableRows[0] !== key || this.tableRows[2] !== own) { // a unit or language change keeps the numbers
        this.tableRows = [key, X.readouts.tableValues(
          res.config, run, function (name) { return MV.rowConfig(shown, name); },
          function (r) { return MV.memoryOf(r, shown); }, own), own];
      }
      if (this.placesRows[0] !== res) { // an order of one's own has no placements to compare
        this.placesRows = [res, res.theory === null ? []
          : X.closing.placementsValues(res.config, run)];
      }
      this.setHtml('pv-table', X.readouts.tableHtml(this.tableRows[1], lang));
      this.setHtml('pv-bars-key', X.readouts.barsKeyHtml(res.order.hasW, lang, res.balance !== null));
      this.setHtml('pv-places', X.closing.placementsHtml(this.placesRows[1], lang));
      X.sweep.draw(this); // the sweep (static/sweep.js), after the repaint too
      this.setHtml('pv-memory-key', MV.memoryKeyHtml(lang));
    }
    this.writeUrl();
    X.tradeoff.follow(this, run, ready || null); // last: its runs are the most (static/tradeoff.js)
  };

  // The fragment follows the state, so the address bar is a permalink; never an
  // invalid state, and not before the URL the page opened with has been read.
  Explorer.prototype.writeUrl = function () {
    if (!this.ready || this.problem !== null) return;
    if (this.values.custom) return; // an order of one's own does not fit in a URL: leave the last one
    var encoded = X.fields.encode(this.values, this.base), hash = encoded ? '#' + encoded : '';
    // A fragment arrived that its `hashchange` has not read yet (a slice's timer ran
    // first): writing over it would make that handler read this state back, and lose it.
    if (root.location.hash !== this.urlHash) return;
    if (hash === this.urlHash) return;
    try {
      root.history.replaceState(root.history.state, '', hash || root.location.pathname + root.location.search);
      this.urlHash = hash;
    } catch (e) { /* a sandboxed frame may refuse: the view stays, the address does not follow */ }
  };

  // The document has rendered: show the view the page was built for, then the one
  // its URL asks for, and follow the fragment from then on.
  Explorer.prototype.start = function () {
    var self = this, loc = root.location;
    X.compat.install(DATA.compat); // Bokeh's repaint without the work that changes nothing (static/compat.js)
    X.glance.start(this);
    this.runStart();
    this.refresh(Array.from(FIELDS.keys()));
    this.ready = true;
    var follow = function () {
      self.urlHash = root.location.hash;
      self.applyQuery(root.location.search, root.location.hash);
    };
    follow();
    root.addEventListener('hashchange', follow);
  };

  // "Edit this schedule": the shown schedule's order in the order box, as text, shown
  // from there (served/session.Session.edit_schedule).
  Explorer.prototype.editSchedule = function () {
    var res = this.result;
    if (res === null || res.theory === null) return; // an order of one's own is in the box already
    this.update(new Map([['order', res.order.toText()], ['placement', res.schedule.placement], ['custom', true]]), []);
  };

  // "Show my order" (what the box holds now, however often pressed) or "Back to the
  // schedules" (served/session.Session.show_own). Shown, the page goes back to its top,
  // where the readout or the notice says what came of it.
  Explorer.prototype.own = function (how) {
    if (how === 'show') {
      var box = this.doc.get_model_by_name('order');
      var text = box.value_input !== undefined && box.value_input !== null ? box.value_input : box.value;
      this.update(new Map([['order', text], ['custom', true]]), []);
      if (root.scrollTo) root.scrollTo(0, 0);
    } else if (this.values.custom) {
      this.update(new Map([['custom', false]]), []);
    }
  };

  // -- a real run (static/run_view.js; served/view.py does the same) ------------------------

  var RUN = DATA.features.run;

  // Show the run: its figures, readout and notice; the table and the URL after the repaint.
  Explorer.prototype.showRun = function (lang) {
    var r = this.real;
    this.problem = null;
    this.showNotice(lang, null);
    this.runButtons();
    this.setText('pv-summary', T.template('run.summary', lang)); // what the bar above it does now
    this.result = r.res;
    this.draw(r.res, lang);
    this.setHtml('pv-readout', X.runView.readoutHtml(X.runView.readoutValues(r.rep), lang));
    this.setHtml('pv-closing', '');
    X.glance.drawn(this, r.res, lang);
    this.setHidden('pv-memory-readout', true);
    this.setHidden('pv-memory-key', true);
    if (this.shownLang !== lang) this.relabel(lang);
    X.puzzleView.drawn(this, r.res, lang);
    this.later();
  };

  Explorer.prototype.runButtons = function () {
    var shown = this.real !== null;
    ['pv-run-ask', 'pv-run-back'].forEach(function (id) {
      var b = byId(id);
      if (b && b.disabled === shown) b.disabled = !shown;
    });
  };

  // Files chosen or dropped: read them here (nothing is sent anywhere), then show the
  // run, or say in the notice what is wrong with them and keep the view as it was.
  Explorer.prototype.loadFiles = function (list) {
    var self = this, files = Array.from(list || []), lang = this.values.lang, total = 0, gen = ++this.reading;
    files.forEach(function (f) { total += f.size; });
    this.notes = [];
    var refuse = function (m) {
      self.runProblem = m;
      self.refresh([]);
      self.runProblem = null; // shown until the next change
    };
    if (!files.length) return Promise.resolve(refuse(T.msg('run.none_chosen')));
    if (total > RUN.pageMaxBytes) return Promise.resolve(refuse(X.runView.tooLarge(total, RUN.pageMaxBytes)));
    this.notes = [T.msg('run.reading', { files: files.map(function (f) { return f.name; }).join(', ') })];
    this.showNotice(lang, this.result);
    this.notes = [];
    return E.trace.readFiles(files, {}).then(function (run) {
      if (gen !== self.reading) return;
      var rep = E.trace.report(run);
      self.real = { rep: rep, res: X.runView.resultOf(rep), what: null };
      self.window = null;
      self.refresh([]);
      if (root.scrollTo) root.scrollTo(0, 0); // where the readout says what came of it
    }).catch(function (e) {
      if (gen !== self.reading) return;
      var m = e instanceof E.PipevizError ? T.msg(e.key, e.args)
        : T.msg('trace.open', { file: files[0].name, why: String(e && e.message || e) });
      refuse(m);
    });
  };

  // "What if" (every schedule at the run's costs, in the table) or "Back to the schedules".
  Explorer.prototype.runAction = function (how) {
    if (this.real === null) return;
    if (how === 'whatif') {
      if (this.real.what === null) this.real.what = E.trace.whatIf(this.real.rep);
      this.secondary();
      var table = byId('pv-table');
      if (table && table.scrollIntoView) table.scrollIntoView();
    } else {
      this.real = null;
      this.result = null; // the schedules' result again
      this.refresh(Array.from(FIELDS.keys()));
    }
  };

  // The run's section: its words in `lang`, its input, the drop anywhere on the page.
  Explorer.prototype.runStart = function () {
    var self = this, input = byId('pv-run-files');
    if (input) {
      input.addEventListener('change', function () {
        var files = Array.from(input.files || []);
        input.value = ''; // the same files chosen again are read again
        self.loadFiles(files);
      });
    }
    var whatif = byId('pv-run-ask'), back = byId('pv-run-back');
    if (whatif) whatif.addEventListener('click', function () { self.runAction('whatif'); });
    if (back) back.addEventListener('click', function () { self.runAction('back'); });
    var hasFiles = function (e) {
      var types = e.dataTransfer && e.dataTransfer.types;
      return !!types && Array.prototype.indexOf.call(types, 'Files') >= 0;
    };
    root.addEventListener('dragover', function (e) {
      if (!hasFiles(e)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
    });
    root.addEventListener('drop', function (e) {
      if (!hasFiles(e)) return;
      e.preventDefault();
      self.loadFiles(e.dataTransfer.files);
    });
    this.runButtons();
  };

  Explorer.prototype.runRelabel = function (lang) {
    var self = this;
    [['pv-run-title', 'run.title'], ['pv-run-note', 'run.note'], ['pv-run-drop', 'run.drop'],
      ['pv-run-ask', 'run.whatif'], ['pv-run-back', 'run.back']].forEach(function (p) {
      self.setText(p[0], T.template(p[1], lang));
    });
    var input = byId('pv-run-files');
    if (input) input.setAttribute('aria-label', T.template('run.files', lang));
    var label = byId('pv-run-files-label');
    if (label) label.textContent = T.template('run.files', lang);
  };

  var explorer = null;

  X.Explorer = Explorer;
  X.same = same;
  X.sameData = sameData;
  X.get = function () { return explorer; };
  X.handle = function (doc, what, key) {
    if (what === 'ready') {
      if (explorer === null) {
        explorer = new Explorer(doc);
        explorer.start();
      }
    } else if (explorer !== null) {
      if (what === 'resize') explorer.resized();
      else if (what === 'zoom') explorer.zoomed(key);
      else if (what === 'edit') explorer.editSchedule();
      else if (what === 'own') explorer.own(key);
      else if (what === 'puzzle') X.puzzleView.handle(explorer, key); // key: the block's action
      else if (what === 'tradeoff') X.tradeoff.tapped(explorer); // a point of the trade-off view
      else explorer.changed(key);
    }
    return explorer;
  };
})(typeof window !== 'undefined' ? window : globalThis);
