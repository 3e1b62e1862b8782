/* The rules that keep the explorer's state valid: twin of pipeviz/view/state.py.
 *
 * normalize(state, changed) takes the state after a change (a widget moved, a
 * preset, a URL; `changed` names the fields that changed) and returns
 * {state, notes}: a state the engine accepts, and a note (a message) for each thing
 * it adjusted.
 *   0. a puzzle: P, m and V placeable by hand, the schedule its par, the moves
 *      replayed (puzzle_view.js); a schedule or an order of one's own puts it away.
 *   1. V and the schedule: a schedule with a fixed V keeps it. Moving V above 1 on
 *      the schedule that has an interleaved form (PIPEVIZ_DATA.features.schedule.vStep) moves to
 *      it; the interleaved form at V = 1 says it is the plain one.
 *   2. the encoder: moving e_f, e_b or frozen with no encoder runs it in the bubbles
 *      (PIPEVIZ_DATA.features.closing: the knobs, the "none" value and the placement).
 *   3. m: where the schedule refuses m, m moves to the nearest value it accepts.
 *   4. the model: a preset sets its shape; changing the shape makes it custom
 *      (memory_view.js).
 */
(function (root) {
  'use strict';

  var E = root.PipevizEngine;
  var T = root.PipevizText;
  var X = root.PipevizExplorer;
  var SCHEDULE = root.PIPEVIZ_DATA.features.schedule;
  var ONE_CHUNK = SCHEDULE.vStep[0], INTERLEAVED = SCHEDULE.vStep[1];
  var CLOSING = root.PIPEVIZ_DATA.features.closing;

  // The engine configuration a state shows (state.config; a ConfigError if it has none).
  function config(state) {
    var cfg = E.config(state.schedule, state.P, state.m, state.V,
                       E.costs(state.tf, state.tb, state.tw, state.comm, state.tfb || null), null,
                       encoderOf(state), state.balance ? CLOSING.modes[0] : null);
    return X.memoryView.withWeights(cfg, state);
  }

  // The encoder a state runs: none, or e_f, e_b, placement and frozen (state.encoder_of).
  function encoderOf(state) {
    var place = state[CLOSING.field];
    return place === CLOSING.none ? null : new E.Encoder(state.ef, state.eb, place, state.frozen);
  }

  // The ConfigError that keeps the state from being shown, or null.
  function problem(state) {
    try {
      E.check(config(state));
    } catch (e) {
      if (e instanceof E.PipevizError && e.type === 'ConfigError') return e;
      throw e;
    }
    return null;
  }

  function has(changed, key) { return changed.indexOf(key) >= 0; }

  // An order of one's own (view/own_order.rule): while it is shown, P, m and V
  // follow it where the sliders reach them, and moving the schedule, P, m or V goes
  // back to the schedules. Returns [shown, notes].
  var OWN = root.PIPEVIZ_DATA.features.own_order, OWN_FIELDS = OWN.ownFields, LEAVE = OWN.leave;
  var readCache = new Map();
  function readOrder(text, placement) { // custom.read_cached
    var key = JSON.stringify([text, placement]);
    if (!readCache.has(key)) {
      var got;
      try { got = { order: E.custom.read(text, placement) }; } catch (e) { got = { error: e }; }
      if (readCache.size >= 16) readCache.delete(readCache.keys().next().value);
      readCache.set(key, got);
    }
    var hit = readCache.get(key);
    if (hit.error) throw hit.error;
    return hit.order;
  }

  function ownRule(state, changed) {
    if (!state.custom) return [false, []];
    var any = function (keys) { return keys.some(function (k) { return has(changed, k); }); };
    if (any(LEAVE) && !any(OWN_FIELDS)) {
      state.custom = false;
      return [false, [T.msg('rule.custom_off', {})]];
    }
    var order;
    try {
      order = readOrder(state.order === undefined ? '' : state.order, state.placement === undefined ? 'loop' : state.placement);
    } catch (e) {
      if (e instanceof E.PipevizError && e.type === 'OrderError') return [true, []]; // the explorer says what is wrong
      throw e;
    }
    [['P', order.P], ['m', order.m], ['V', order.chunksPerRank]].forEach(function (kv) {
      var f = X.fields.FIELDS.get(kv[0]);
      if (f.low <= kv[1] && kv[1] <= f.high) state[kv[0]] = kv[1];
    });
    return [true, []];
  }

  function normalize(state, changed) {
    state = Object.assign({}, state);
    var notes = [];
    X.puzzleView.rule(state, changed, notes); // 0. a puzzle's rule (puzzle_view.js): first, as in view/features.py
    var own = ownRule(state, changed);
    notes = notes.concat(own[1]);
    if (own[0]) return { state: state, notes: notes };
    var name = state.schedule, V = state.V;
    var fixed = E.SCHEDULES.get(name).fixedV;
    var byV = has(changed, 'V') && !has(changed, 'schedule'); // the V slider moved, nothing else
    if (fixed !== null && V !== fixed) {
      if (byV && name === ONE_CHUNK && V > 1) {
        state.schedule = INTERLEAVED;
        notes.push(T.msg('rule.to_interleaved', { V: V }));
      } else {
        state.V = fixed;
        notes.push(T.msg(byV ? 'rule.v_kept' : 'rule.v_set', { name: name, V: fixed }));
      }
    } else if (V < E.SCHEDULES.get(name).leastV && has(changed, 'schedule') && !has(changed, 'V')) {
      state.V = E.SCHEDULES.get(name).leastV; // chosen where it is another schedule: its least V
      notes.push(T.msg('rule.v_least', { name: name, V: state.V }));
    } else if (name === INTERLEAVED && V === 1 && (has(changed, 'V') || has(changed, 'schedule'))) {
      notes.push(T.msg('rule.interleaved_v1', {}));
    }
    var knob = CLOSING.knobs.some(function (k) { return has(changed, k); });
    if (state[CLOSING.field] === CLOSING.none && knob && !has(changed, CLOSING.field)) {
      state[CLOSING.field] = CLOSING.on;
      notes.push(T.msg('rule.encoder_on', {}));
    }
    X.memoryView.normalize(state, changed, notes); // 4. a model preset and its shape
    var error = problem(state);
    if (error !== null) {
      var m = nearestM(state);
      if (m !== null) {
        state.m = m;
        notes.push(T.msg('rule.m_snap', { why: T.msg(error.key, error.args), m: m }));
      }
    }
    return { state: state, notes: notes };
  }

  // The m in the field's range nearest to state's m that the schedule accepts (the
  // larger one on a tie), or null.
  function nearestM(state) {
    var f = X.fields.FIELDS.get('m'), m = state.m;
    for (var d = 1; d <= Math.trunc(f.high - f.low); d++) {
      var cands = [m + d, m - d];
      for (var j = 0; j < 2; j++) {
        var cand = cands[j];
        if (f.low <= cand && cand <= f.high && problem(Object.assign({}, state, { m: cand })) === null) return cand;
      }
    }
    return null;
  }

  X.state = { config: config, encoderOf: encoderOf, problem: problem, normalize: normalize, nearestM: nearestM, readOrder: readOrder };
})(typeof window !== 'undefined' ? window : globalThis);
