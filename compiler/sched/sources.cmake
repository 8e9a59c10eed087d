# compiler/sched/: schedules: built-in and CSV orders, measured timings, the DAG, the simulator.
# Sources, relative to the project root (docs/architecture.md is the map).
set(TFC_SCHED_SOURCES
  compiler/sched/actmem.c
  compiler/sched/dag.c
  compiler/sched/sched.c
  compiler/sched/sched_build.c
  compiler/sched/sched_builtin.c
  compiler/sched/sched_csv.c
  compiler/sched/sim.c
  compiler/sched/sim_shared.c
  compiler/sched/timing_csv.c
  compiler/sched/timing_samples.c
  compiler/sched/timing_trace.c
)
