/* Schedules built from a repeating building block, as V-Half and V-Min are (Qi et al.,
 * "Pipeline Parallelism with Controllable Memory"). Twin of
 * pipeviz/schedules/building_blocks.py, whose docstring says what each step does.
 *
 * A rank's four lanes: F0, F1 (forwards of chunks 0 and 1), B1, B0 (their
 * input-gradient backwards); during the squeezes one more lane holds every W, and at
 * the end two (W1, W0). lanes[(r * 6 + lane) * 2m + i] is when rank r runs the i-th op
 * of a lane.
 *
 *   Step 1: repeat   lane L of micro-batch i on rank r at pattern[r][L] + 6i
 *   Step 2: squeeze  W's into the gaps, then every op outside the steady state
 *   Step 3: compact  as soon as possible
 *   Step 4: squeeze  the cool-down again, the W's left out
 *   Step 5: compact  with the W's in the gaps
 *   Step 6: the W's  into the gaps, chunk 1's first: each rank's ops in time order */
(function (E) {
  'use strict';

  // The lanes' numbers, WS (the lane of every W before step 6) and PERIOD (units between
  // one micro-batch's block and the next's): building_blocks.py's, as data (page_document.codes).
  var LANES = PIPEVIZ_DATA.codes.lanes;
  var F0 = LANES.F0, F1 = LANES.F1, B1 = LANES.B1, B0 = LANES.B0, W1 = LANES.W1, W0 = LANES.W0;
  var WS = LANES.WS, PERIOD = LANES.PERIOD;
  var cache = new Map(); // (P, m, pattern) -> each rank's ops, as Python's lru_cache(64)

  function size(lane, m) { return lane < WS ? m : 2 * m; }

  function at(m, r, lane, i) { return (r * 6 + lane) * 2 * m + i; }

  // The last slot used (a lane's unused entries, and the lanes a pass leaves out, are -1).
  function latest(lanes) {
    var high = -1;
    for (var k = 0; k < lanes.length; k++) if (lanes[k] > high) high = lanes[k];
    return high;
  }

  // Each rank's W's from its F and B lanes: each B leaves a pending W, each free slot
  // runs one (chunk 1's before chunk 0's when split); the rest follow the last op.
  function placeWs(lanes, P, m, split) {
    for (var r = 0; r < P; r++) {
      var bound = 0, lane, i, t;
      for (lane = 0; lane < WS; lane++) bound = Math.max(bound, lanes[at(m, r, lane, m - 1)]);
      var slot = new Int32Array(bound + 1).fill(-1);
      for (lane = 0; lane < WS; lane++) for (i = 0; i < m; i++) slot[lanes[at(m, r, lane, i)]] = lane;
      var pending = [0, 0], placed = [0, 0];
      for (t = 0; t <= bound; t++) {
        lane = slot[t];
        if (lane === B1) pending[0] += 1;
        else if (lane === B0) pending[split ? 1 : 0] += 1;
        else if (lane < 0) {
          for (var w = 0; w < 2; w++) {
            if (pending[w] > 0) { lanes[at(m, r, WS + w, placed[w]++)] = t; pending[w] -= 1; break; }
          }
        }
      }
      t = bound;
      for (var v = 0; v < 2; v++) {
        while (pending[v] > 0) { t += 1; lanes[at(m, r, WS + v, placed[v]++)] = t; pending[v] -= 1; }
      }
    }
  }

  // Every op as [rank, lane, index], by (time, rank, lane, index): a counting sort on
  // time filled in (rank, lane, index) order.
  function timeOrder(lanes, P, m, withW) {
    var nLanes = withW ? WS + 1 : WS, horizon = latest(lanes) + 1;
    var count = new Int32Array(horizon + 1), r, lane, i, t;
    for (r = 0; r < P; r++) {
      for (lane = 0; lane < nLanes; lane++) for (i = 0; i < size(lane, m); i++) count[lanes[at(m, r, lane, i)] + 1] += 1;
    }
    for (t = 0; t < horizon; t++) count[t + 1] += count[t];
    var who = new Int32Array(3 * count[horizon]);
    for (r = 0; r < P; r++) {
      for (lane = 0; lane < nLanes; lane++) {
        for (i = 0; i < size(lane, m); i++) {
          var k = count[lanes[at(m, r, lane, i)]]++;
          who[3 * k] = r; who[3 * k + 1] = lane; who[3 * k + 2] = i;
        }
      }
    }
    return who;
  }

  // A rank's chunks in flight after each slot from `start` on (an F adds one, a W
  // takes one away; with the W's left out, each B leaves a pending W and each free
  // slot runs one), from the values at start-1; false once a level passes cap.
  function levels(slot, base, horizon, implicitW, level, pending, start, cap, write) {
    var cur = start > 0 ? level[base + start - 1] : 0, wait = start > 0 ? pending[base + start - 1] : 0;
    for (var t = start; t < horizon; t++) {
      var lane = slot[base + t];
      if (lane === F0 || lane === F1) cur += 1;
      else if (lane === B1 || lane === B0) wait += 1;
      else if (lane === WS) cur -= 1;
      else if (implicitW && wait > 0) { cur -= 1; wait -= 1; }
      if (cur > cap) return false;
      if (write) { level[base + t] = cur; pending[base + t] = wait; }
    }
    return true;
  }

  // Steps 2 and 4: each op, in time order, to the earliest free slot after its inputs
  // where its rank's peak stays at most the worst rank's peak before the squeeze;
  // the steady state (rank 0's first B0 to the first F0 of micro-batch m-1) stays.
  function squeeze(lanes, P, m, withW) {
    var nLanes = withW ? WS + 1 : WS, implicitW = !withW, horizon = latest(lanes) + 1;
    var slot = new Int32Array(P * horizon).fill(-1), level = new Int32Array(P * horizon);
    var pending = new Int32Array(P * horizon), placed = new Uint8Array(P * horizon);
    var r, lane, i, t, cap = 0;
    for (r = 0; r < P; r++) {
      for (lane = 0; lane < nLanes; lane++) for (i = 0; i < size(lane, m); i++) slot[r * horizon + lanes[at(m, r, lane, i)]] = lane;
    }
    for (r = 0; r < P; r++) {
      levels(slot, r * horizon, horizon, implicitW, level, pending, 0, horizon, true);
      for (t = 0; t < horizon; t++) cap = Math.max(cap, level[r * horizon + t]);
    }
    var phase = 0; // 0 warm-up, 1 steady state (kept), 2 cool-down
    var todo = timeOrder(lanes, P, m, withW);
    for (var j = 0; j < todo.length; j += 3) {
      r = todo[j]; lane = todo[j + 1]; i = todo[j + 2];
      var base = r * horizon, now = lanes[at(m, r, lane, i)];
      if (phase === 0 && lane === B0 && r === 0) phase = 1;
      if (phase === 1 || (phase === 0 && !withW)) {
        if (phase === 1 && lane === F0 && i === m - 1) phase = 2;
        placed[base + now] = 1;
        continue;
      }
      var ready = -1; // the latest slot of its inputs
      if ((lane === F0 || lane === B1) && r > 0) ready = Math.max(ready, lanes[at(m, r - 1, lane, i)]);
      if ((lane === F1 || lane === B0) && r < P - 1) ready = Math.max(ready, lanes[at(m, r + 1, lane, i)]);
      if (F0 < lane && lane < WS) ready = Math.max(ready, lanes[at(m, r, lane - 1, i)]);
      if (lane === WS) { // the i-th B in time, of either chunk
        var a = 0, b = 0, last = -1;
        for (var q = 0; q <= i; q++) {
          if (b >= m || (a < m && lanes[at(m, r, B1, a)] < lanes[at(m, r, B0, b)])) last = lanes[at(m, r, B1, a++)];
          else last = lanes[at(m, r, B0, b++)];
        }
        ready = Math.max(ready, last);
      }
      if (i > 0) ready = Math.max(ready, lanes[at(m, r, lane, i - 1)]);
      var to = now, isF = lane === F0 || lane === F1;
      if (withW) {
        // An F raises the levels between its new slot and its old one by one; a B
        // leaves them, a W lowers them.
        var low = ready + 1;
        if (isF) { // an F fits from the slot after the last one at the cap before its old one
          for (t = now - 1; t >= low && level[base + t] < cap; t--);
          low = t + 1;
        }
        for (t = low; t < now; t++) if (!placed[base + t]) { to = t; break; } // the first free slot from there
        var step = isF ? 1 : lane === WS ? -1 : 0;
        for (t = to; t < now; t++) level[base + t] += step;
        slot[base + now] = -1;
        slot[base + to] = lane;
      } else {
        slot[base + now] = -1;
        for (t = ready + 1; t < now; t++) {
          if (placed[base + t]) continue;
          slot[base + t] = lane;
          if (levels(slot, base, horizon, true, level, pending, t, cap, false)) { to = t; break; }
          slot[base + t] = -1;
        }
        slot[base + now] = to === now ? lane : -1;
        if (to < now) levels(slot, base, horizon, true, level, pending, to, horizon, true);
      }
      lanes[at(m, r, lane, i)] = to;
      placed[base + to] = 1;
    }
  }

  // Steps 3 and 5: each op as soon as its inputs and its rank's previous op have
  // ended, every op one unit long, in the order of the slots it held.
  function compact(lanes, P, m, withW) {
    var out = new Int32Array(lanes.length).fill(-1), end = new Int32Array(lanes.length).fill(-1);
    var free = new Int32Array(P), todo = timeOrder(lanes, P, m, withW);
    for (var j = 0; j < todo.length; j += 3) {
      var r = todo[j], lane = todo[j + 1], i = todo[j + 2], start = free[r];
      if ((lane === F0 || lane === B1) && r > 0) start = Math.max(start, end[at(m, r - 1, lane, i)]);
      if ((lane === F1 || lane === B0) && r < P - 1) start = Math.max(start, end[at(m, r + 1, lane, i)]);
      if (F0 < lane && lane < WS) start = Math.max(start, end[at(m, r, lane - 1, i)]);
      if (i > 0) start = Math.max(start, end[at(m, r, lane, i - 1)]);
      out[at(m, r, lane, i)] = start;
      end[at(m, r, lane, i)] = start + 1;
      free[r] = start + 1;
    }
    return out;
  }

  function clearWs(lanes, P, m) {
    for (var r = 0; r < P; r++) lanes.fill(-1, at(m, r, WS, 0), at(m, r, 6, 0));
  }

  // Per rank, [kind, mb, stage, ...] in time order.
  function schedule(P, m, pattern) {
    var lanes = new Int32Array(P * 6 * 2 * m).fill(-1), r, lane, i;
    for (r = 0; r < P; r++) { // Step 1: repeat the block
      for (lane = 0; lane < WS; lane++) for (i = 0; i < m; i++) lanes[at(m, r, lane, i)] = pattern[r][lane] + PERIOD * i;
    }
    placeWs(lanes, P, m, false); // Step 2: the W's into the gaps, then squeeze
    squeeze(lanes, P, m, true);
    lanes = compact(lanes, P, m, true); // Step 3
    clearWs(lanes, P, m); // Step 4: squeeze the cool-down without the W's
    squeeze(lanes, P, m, false);
    placeWs(lanes, P, m, false); // Step 5: compact with the W's in the gaps
    lanes = compact(lanes, P, m, true);
    clearWs(lanes, P, m); // Step 6: the W's into the gaps, chunk 1's first
    placeWs(lanes, P, m, true);
    var kinds = [E.F, E.F, E.I, E.I, E.W, E.W], out = [], horizon = latest(lanes) + 1;
    var byTime = new Int32Array(horizon);
    for (r = 0; r < P; r++) { // each rank's ops in time order (one op a slot)
      byTime.fill(-1);
      for (lane = 0; lane < 6; lane++) for (i = 0; i < m; i++) byTime[lanes[at(m, r, lane, i)]] = lane * m + i;
      var flat = new Int32Array(18 * m), n = 0;
      for (var t = 0; t < horizon; t++) {
        if (byTime[t] < 0) continue;
        lane = Math.floor(byTime[t] / m);
        // chunk 0 (F0, B0, W0) is stage r; chunk 1 (F1, B1, W1) is stage 2P-1-r
        var chunk0 = lane === F0 || lane === B0 || lane === W0;
        flat[n++] = kinds[lane]; flat[n++] = byTime[t] % m; flat[n++] = chunk0 ? r : 2 * P - 1 - r;
      }
      out.push(flat);
    }
    return out;
  }

  // The order of a V-shaped building-block schedule: pattern[r] holds when rank r runs
  // micro-batch 0's F0, F1, B1 and B0.
  function vSchedule(P, m, pattern) {
    var key = P + ',' + m + ',' + pattern.join(';'), ops = cache.get(key);
    if (ops === undefined) {
      ops = schedule(P, m, pattern);
      if (cache.size >= 64) cache.delete(cache.keys().next().value);
    } else {
      cache.delete(key);
    }
    cache.set(key, ops);
    var order = new E.OrderBuilder(P, m, E.vPlacement(P));
    order.steps(E.perRank(P, function (q) { return ops[q].length / 3; }), function (q, k, emit) {
      emit(ops[q][3 * k], ops[q][3 * k + 1], ops[q][3 * k + 2]);
    });
    return order.build();
  }

  E.modules.building_blocks = { vSchedule: vSchedule };
})(PipevizEngine);
