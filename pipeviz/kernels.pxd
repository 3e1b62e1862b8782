# The C types of pipeviz/kernels.py, for the compiled build (setup.py): Cython reads
# this beside the plain-Python file ("augmenting .pxd"), so kernels.py itself stays
# Python that runs without Cython. Array arguments are C-contiguous typed memoryviews
# (`::1`: an element is one load, not a stride multiply; every array the engine passes
# is one, and the view wrappers make sure), const where only read (some arrays are
# read-only); each local that views an array it fills is typed, and the array itself
# (`*_a`) stays a Python object, which is what is returned. Every name used in a loop
# must be typed here, or the loop runs at Python speed.

cimport cython
from libc.stdint cimport int8_t, int64_t, uint8_t

cdef int64_t F, B, I, W, FB, EF, EB, N_KINDS, INT64_MIN, INFLIGHT, AWAITING_B, AWAITING_W

@cython.locals(t=int64_t)
cdef int64_t floor_int(double x)

@cython.locals(one=bint, n=Py_ssize_t, r=Py_ssize_t, c=Py_ssize_t, i=Py_ssize_t, at=Py_ssize_t,
               rank=int64_t[::1], step=int64_t[::1])
cpdef tuple steps(const int64_t[::1] counts, Py_ssize_t P)

@cython.locals(total=Py_ssize_t, base=Py_ssize_t, p=Py_ssize_t, n=Py_ssize_t, k=Py_ssize_t, j=Py_ssize_t,
               at=Py_ssize_t, t=Py_ssize_t, c=Py_ssize_t, one=int64_t, parts=int64_t[:, ::1], dims=int64_t[:, ::1],
               rank=int64_t[::1], values=int64_t[::1])
cpdef tuple build_order(Py_ssize_t P, list phases, Py_ssize_t keep_below)

@cython.locals(n_all=Py_ssize_t, at=Py_ssize_t, base=Py_ssize_t, p=Py_ssize_t, n=Py_ssize_t, k=Py_ssize_t,
               t=Py_ssize_t, j=Py_ssize_t, i=Py_ssize_t, r=Py_ssize_t, e=Py_ssize_t, total=Py_ssize_t,
               src=int64_t[::1], keep=uint8_t[::1], rank_ptr=int64_t[::1], nxt=int64_t[::1],
               o_kind=int8_t[::1], o_mb=int64_t[::1], o_stage=int64_t[::1], o_mb2=int64_t[::1],
               o_stage2=int64_t[::1])
cpdef tuple pack(const int64_t[:, ::1] parts, const int64_t[:, ::1] phases, Py_ssize_t P, Py_ssize_t keep_below)

@cython.locals(per_kind=double[::1])
cpdef object kind_costs(double tf, double tb, double tw, double fb, Py_ssize_t chunks)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, k=Py_ssize_t, d=double, dur=double[::1])
cpdef object durations(const int8_t[::1] kind, const int64_t[::1] stage, const int64_t[::1] stage2,
                       const double[::1] per_kind, double f_part, double b_part, const double[::1] w, bint weighted)

@cython.locals(S=Py_ssize_t, N=Py_ssize_t, P=Py_ssize_t, s=Py_ssize_t, r=Py_ssize_t, i=Py_ssize_t, k=Py_ssize_t,
               j=Py_ssize_t, e=Py_ssize_t, b=Py_ssize_t, enc=bint, bad=bint, used=bint, any_ef=bint, any_eb=bint,
               fwd=int64_t[::1], bwd=int64_t[::1], has_i=int64_t[::1], has_w=int64_t[::1],
               enc_n=int64_t[:, ::1])
cpdef tuple check_order(const int8_t[::1] kind, const int64_t[::1] mb, const int64_t[::1] stage, const int64_t[::1] mb2,
                        const int64_t[::1] stage2, const int64_t[::1] rank_ptr, const int64_t[::1] stage_to_rank,
                        Py_ssize_t m)

@cython.locals(N=Py_ssize_t, P=Py_ssize_t, r=Py_ssize_t, i=Py_ssize_t, k=Py_ssize_t, lo=Py_ssize_t, hi=Py_ssize_t,
               n_seg=Py_ssize_t, cap=Py_ssize_t, n=Py_ssize_t, d=Py_ssize_t, b_mb=Py_ssize_t, b_st=Py_ssize_t,
               ks=Py_ssize_t, rank=int64_t[::1], fwd=int64_t[::1], bwd=int64_t[::1], enc_f=int64_t[::1],
               ptr=int64_t[::1], idx=int64_t[::1], lag=double[::1], first=int64_t[:, ::1],
               last_lt=int64_t[:, ::1], last_eq=int64_t[:, ::1])
cpdef tuple dependencies(const int8_t[::1] kind, const int64_t[::1] mb, const int64_t[::1] stage, const int64_t[::1] mb2,
                         const int64_t[::1] stage2, const int64_t[::1] rank_ptr, Py_ssize_t m, Py_ssize_t S,
                         double comm, const int64_t[::1] seg, bint has_seg)

@cython.locals(P=Py_ssize_t, r=Py_ssize_t, i=Py_ssize_t, hi=Py_ssize_t, k=Py_ssize_t, d=Py_ssize_t,
               left=Py_ssize_t, t=double, t_free=double, at=double, ready=bint, moved=bint,
               nxt=int64_t[::1], free=double[::1], timed=uint8_t[::1])
cpdef object asap(const int64_t[::1] rank_ptr, const double[::1] dur, const int64_t[::1] dep_ptr,
                  const int64_t[::1] dep_idx, const double[::1] dep_lag, double[::1] start, double[::1] end)

@cython.locals(N=Py_ssize_t, r=Py_ssize_t, stuck=bint, nxt=int64_t[::1])
cpdef tuple time_order(const int8_t[::1] kind, const int64_t[::1] mb, const int64_t[::1] stage, const int64_t[::1] mb2,
                       const int64_t[::1] stage2, const int64_t[::1] rank_ptr, const int64_t[::1] stage_to_rank,
                       Py_ssize_t m, bint check, double comm, const int64_t[::1] seg, bint has_seg,
                       const double[::1] given, bint has_given, double tf, double tb, double tw, double fb,
                       Py_ssize_t chunks, const double[::1] w, bint weighted)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, r=Py_ssize_t, P=Py_ssize_t, makespan=double, hi=double, lo=double,
               longest=double, split=bint, busy=double[::1], span=double[::1], peak=int64_t[::1], idle=double[::1],
               peak_mb=double[::1])
cpdef tuple measure_timeline(const int8_t[::1] kind, const double[::1] start, const double[::1] end,
                             const int64_t[::1] ptr, Py_ssize_t chunks)

@cython.locals(P=Py_ssize_t, r=Py_ssize_t, c_b=int64_t[::1], c_w=int64_t[::1], at_b=int64_t[::1],
               at_w=int64_t[::1])
cpdef tuple awaiting(const int8_t[::1] kind, const double[::1] start, const double[::1] end, const int64_t[::1] ptr,
                     const int64_t[::1] at_peak)

@cython.locals(P=Py_ssize_t, r=Py_ssize_t, i=Py_ssize_t, busy=double[::1], span=double[::1])
cpdef tuple busy_span(const double[::1] start, const double[::1] end, const int64_t[::1] ptr)

@cython.locals(P=Py_ssize_t, n=Py_ssize_t, k=Py_ssize_t, r=Py_ssize_t, i=Py_ssize_t, prev=double,
               who=int64_t[::1], lo=double[::1], hi=double[::1])
cpdef tuple idle_gaps(const double[::1] start, const double[::1] end, const int64_t[::1] ptr, double makespan, double tol)

@cython.locals(P=Py_ssize_t, n=Py_ssize_t, k=Py_ssize_t, r=Py_ssize_t, i=Py_ssize_t, h=Py_ssize_t, e=Py_ssize_t,
               c=int64_t, best=int64_t, d=int64_t, t=double, count=int64_t[::1], s_rank=int64_t[::1],
               s_time=double[::1], s_value=int64_t[::1], peak=int64_t[::1], at_peak=int64_t[::1],
               delta=int64_t[:, :, ::1])
cpdef tuple step_events(const int8_t[::1] kind, Py_ssize_t count_of, const double[::1] start, const double[::1] end,
                        const int64_t[::1] ptr)

@cython.locals(n_gaps=Py_ssize_t, g=Py_ssize_t, r=Py_ssize_t, lo=Py_ssize_t, hi=Py_ssize_t, mid=Py_ssize_t,
               i=Py_ssize_t, k=Py_ssize_t, dep=Py_ssize_t, x=double, best=double, found=bint, out=int64_t[::1])
cpdef object gap_waits(const int64_t[::1] rank_ptr, const int64_t[::1] op_rank, const double[::1] start,
                       const double[::1] end, const int64_t[::1] dep_ptr, const int64_t[::1] dep_idx,
                       const double[::1] dep_lag, const int64_t[::1] gap_rank, const double[::1] gap_end, double tol)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, nxt=Py_ssize_t, k=Py_ssize_t, d=Py_ssize_t, path=int64_t[::1])
cpdef object walk_back(const int64_t[::1] rank_ptr, const int64_t[::1] rank, const double[::1] start,
                       const double[::1] end, const int64_t[::1] dep_ptr, const int64_t[::1] dep_idx,
                       const double[::1] dep_lag, Py_ssize_t last, double tol)

@cython.locals(n=Py_ssize_t, k=Py_ssize_t, i=Py_ssize_t, j=Py_ssize_t, low=Py_ssize_t, high=Py_ssize_t,
               v=Py_ssize_t, h=Py_ssize_t, c=int64_t, keep=int64_t[::1])
cpdef object thin(const double[::1] x, const double[::1] y, double lo, double hi, double unit)

@cython.locals(n=Py_ssize_t, k=Py_ssize_t, r=Py_ssize_t, i=Py_ssize_t, j=Py_ssize_t, b_idx=Py_ssize_t,
               b_first=Py_ssize_t, b_last=Py_ssize_t, b_count=Py_ssize_t, run_bin=Py_ssize_t, b=Py_ssize_t,
               best=Py_ssize_t, c=Py_ssize_t, first=Py_ssize_t, in_bin=bint, run_open=bint, last=bint, skip=bint,
               wide=bint, rep=int64_t[::1], col=int64_t[::1], count=int64_t[::1], left=double[::1],
               right=double[::1], sums=double[::1])
cpdef tuple level(const double[::1] start, const double[::1] end, const int64_t[::1] rank_ptr, const int64_t[::1] color,
                  Py_ssize_t n_colors, double lo, double hi, double unit)

@cython.locals(n_jobs=Py_ssize_t, n=Py_ssize_t, cap=Py_ssize_t, k=Py_ssize_t, j=Py_ssize_t, best=Py_ssize_t,
               e=double, lag=double, w_lo=double, w_hi=double, lo=double, s=double, right_lo=double,
               right_hi=double, lo_=double[::1], hi_=double[::1], at=double[::1], rank_=int64_t[::1],
               pos_=int64_t[::1], out_rank=int64_t[::1], out_pos=int64_t[::1], alive=uint8_t[::1],
               placed=uint8_t[::1])
cpdef tuple place_jobs(const double[::1] g_lo, const double[::1] g_hi, const int64_t[::1] g_rank, const int64_t[::1] g_pos,
                       const uint8_t[::1] is_f, const double[::1] bound, const double[::1] cost, double t0, double t1,
                       double comm, Py_ssize_t r0, double tol)

# Schedules built by greedy passes: V-Half and V-Min's building blocks, ZB-H2's rule.
cdef int64_t BB_F0, BB_F1, BB_B1, BB_B0, BB_W1, BB_W0, BB_WS

cdef Py_ssize_t bb_size(Py_ssize_t lane, Py_ssize_t m)

@cython.locals(top=int64_t, r=Py_ssize_t, lane=Py_ssize_t, i=Py_ssize_t)
cdef Py_ssize_t bb_horizon(const int64_t[:, :, ::1] lanes)

@cython.locals(P=Py_ssize_t, r=Py_ssize_t, lane=Py_ssize_t, i=Py_ssize_t, t=Py_ssize_t, w=Py_ssize_t,
               bound=Py_ssize_t, pending=int64_t[::1], placed=int64_t[::1], slot=int64_t[::1])
cpdef object bb_place_ws(int64_t[:, :, ::1] lanes, Py_ssize_t m, bint split)

@cython.locals(P=Py_ssize_t, n_lanes=Py_ssize_t, horizon=Py_ssize_t, r=Py_ssize_t, lane=Py_ssize_t, i=Py_ssize_t,
               t=Py_ssize_t, at=Py_ssize_t, count=int64_t[::1], who=int64_t[:, ::1])
cpdef object bb_time_order(const int64_t[:, :, ::1] lanes, Py_ssize_t m, bint with_w)

@cython.locals(cur=int64_t, wait=int64_t, t=Py_ssize_t, lane=int64_t)
cdef bint bb_levels(int64_t[:, ::1] slot, int64_t[:, ::1] level, int64_t[:, ::1] pending, Py_ssize_t r,
                    bint implicit_w, Py_ssize_t start, int64_t cap, bint write)

@cython.locals(P=Py_ssize_t, n_lanes=Py_ssize_t, implicit_w=bint, horizon=Py_ssize_t, r=Py_ssize_t, lane=Py_ssize_t,
               i=Py_ssize_t, j=Py_ssize_t, t=Py_ssize_t, _k=Py_ssize_t, a=Py_ssize_t, b=Py_ssize_t, cap=int64_t,
               phase=int, now=Py_ssize_t, ready=Py_ssize_t, last=Py_ssize_t, to=Py_ssize_t, low=Py_ssize_t,
               step=int64_t, slot=int64_t[:, ::1], level=int64_t[:, ::1], pending=int64_t[:, ::1],
               placed=uint8_t[:, ::1], todo=int64_t[:, ::1])
cpdef object bb_squeeze(int64_t[:, :, ::1] lanes, Py_ssize_t m, bint with_w)

@cython.locals(P=Py_ssize_t, r=Py_ssize_t, lane=Py_ssize_t, i=Py_ssize_t, j=Py_ssize_t, start=int64_t,
               out=int64_t[:, :, ::1], end=int64_t[:, :, ::1], free=int64_t[::1], todo=int64_t[:, ::1])
cpdef object bb_compact(const int64_t[:, :, ::1] lanes, Py_ssize_t m, bint with_w)

@cython.locals(P=Py_ssize_t, n=Py_ssize_t, r=Py_ssize_t, lane=Py_ssize_t, i=Py_ssize_t, t=Py_ssize_t,
               c=Py_ssize_t, horizon=Py_ssize_t, kind=int64_t[:, ::1], mb=int64_t[:, ::1], stage=int64_t[:, ::1],
               count=int64_t[::1], first=int64_t[::1])
cpdef tuple bb_ops(const int64_t[:, :, ::1] lanes, Py_ssize_t m)

@cython.locals(cap=int64_t, busy=bint, r=Py_ssize_t, k=int64_t, i=int64_t, nf_prev=int64_t, nb_next=int64_t,
               nf=int64_t[::1], nb=int64_t[::1], nw=int64_t[::1], picked=int64_t[::1], pick=int64_t[::1],
               kind=int64_t[:, ::1], mb=int64_t[:, ::1], count=int64_t[::1])
cpdef tuple zbh2_rule(Py_ssize_t P, Py_ssize_t m, const int64_t[::1] warm)
