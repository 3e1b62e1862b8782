/* Why the timeline looks as it does: twin of pipeviz/causes.py.
 *
 * gapWaits(tl, rank, end)  for each idle gap (rank and end as from idleIntervals), the
 *                          index of the op it waits for, or NONE (-1) for a trailing gap
 * criticalPath(tl)         op indices of one critical path, in time order
 * pathLags(tl, path)       the wait between consecutive ops of a path
 *
 * Timing is as soon as possible, so every op starts when its rank's previous op ends
 * or when one of its dependencies ends (plus the lag), or at 0: a gap before op i
 * waits for i's latest cross-rank dependency (else for i itself); a critical path
 * walks back from the op that ends last through tight links, the dependency first.
 */
(function (root) {
  'use strict';

  var E = root.PipevizEngine;
  var NONE = root.PIPEVIZ_DATA.codes.none; // the index that stands for no op (causes.NONE)

  function tolerance(tl) { return 1e-9 * Math.max(1.0, tl.makespan); }

  // numpy's searchsorted(a[lo:hi], x) + lo (side left): the first index with a[i] >= x.
  function searchLeft(a, lo, hi, x) {
    while (lo < hi) {
      var mid = (lo + hi) >>> 1;
      if (a[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  function gapWaits(tl, rank, end) {
    var order = tl.order, ptr = order.rankPtr, opRank = order.rank, d = tl.deps, tol = tolerance(tl);
    var out = new Int32Array(rank.length);
    for (var g = 0; g < rank.length; g++) {
      var r = rank[g];
      var i = searchLeft(tl.start, ptr[r], ptr[r + 1], end[g] - tol);
      out[g] = NONE;
      if (i >= ptr[r + 1]) continue; // a trailing gap: it waits for the iteration's end
      out[g] = i;
      var best = -Infinity;
      for (var k = d.ptr[i]; k < d.ptr[i + 1]; k++) {
        var dep = d.idx[k];
        if (opRank[dep] !== opRank[i] && tl.end[dep] + d.lag[k] > best) {
          best = tl.end[dep] + d.lag[k];
          out[g] = dep;
        }
      }
    }
    return out;
  }

  function criticalPath(tl) {
    var order = tl.order, n = order.nOps;
    if (n === 0) return new Int32Array(0);
    var start = tl.start, end = tl.end, ptr = order.rankPtr, rank = order.rank, d = tl.deps, tol = tolerance(tl);
    var last = 0;
    for (var j = 1; j < n; j++) if (end[j] > end[last]) last = j; // np.argmax: the first maximum
    var path = [], i = last;
    for (;;) {
      path.push(i);
      if (start[i] <= tol) break;
      var nxt = -1;
      for (var k = d.ptr[i]; k < d.ptr[i + 1]; k++) {
        if (Math.abs(end[d.idx[k]] + d.lag[k] - start[i]) <= tol) { nxt = d.idx[k]; break; }
      }
      if (nxt < 0 && i > ptr[rank[i]] && Math.abs(end[i - 1] - start[i]) <= tol) nxt = i - 1;
      if (nxt < 0) break; // cannot happen in an ASAP timeline; stop rather than loop
      i = nxt;
    }
    return Int32Array.from(path.reverse());
  }

  function pathLags(tl, path) {
    var out = new Float64Array(Math.max(path.length - 1, 0));
    for (var k = 1; k < path.length; k++) out[k - 1] = tl.start[path[k]] - tl.end[path[k - 1]];
    return out;
  }

  E.NONE = NONE;
  E.gapWaits = gapWaits;
  E.criticalPath = criticalPath;
  E.pathLags = pathLags;
})(typeof window !== 'undefined' ? window : globalThis);
