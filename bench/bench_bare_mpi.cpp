// Benchmark helper (not a test): bare MPI loops initialised exactly as IMB and OSU initialise MPI (MPI_Init,
// so MPI_THREAD_SINGLE), the reference fabcheck's small-message figures are held against. Driven
// by bench/small_messages.py, one process launch per measurement, interleaved with fabcheck's own launches.
//   allreduce BYTES ITERS  float sum, warm-up ITERS/10, barrier, one timer around ITERS back-to-back ops;
//   prints
//                          the mean over ranks of the time per op (nccl-tests -a 1; IMB's t_avg; OSU's avg)
//   pingpong BYTES ITERS   ranks 0 and 1, each iteration timed on rank 0 as half the round trip
//   (osu_latency's
//                          definition, which reports the mean of it); prints p50 and mean
// Options after ITERS (controls):
//   single|funneled|multiple  MPI_Init_thread at that level instead of MPI_Init
//   prep=N                    rank 0 sends N 1-byte messages to rank 1 before the warm-up. On one host
//                             (Open MPI's vader shared-memory BTL) the 8 B allreduce that follows is ~10 %
//                             slower after an odd number of such messages than after an even one (measured
//                             here: 0.59 vs 0.53 us, 3 launches each for N = 0..4, 8): the message history,
//                             not the loop, sets it, so the bench measures the bare loop in both states.
// Output: one line "bare <mode> bytes=<B> iters=<N> time_us=<t> [p50_us=<p> mean_us=<m>] thread_level=<l>".
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: bench_bare_mpi allreduce|pingpong BYTES ITERS [single|funneled|multiple] [prep=N]\n");
  return 2;
}

const char* level_name() {
  int provided = 0;
  MPI_Query_thread(&provided);
  return provided == MPI_THREAD_SINGLE       ? "single"
         : provided == MPI_THREAD_FUNNELED   ? "funneled"
         : provided == MPI_THREAD_SERIALIZED ? "serialized"
                                             : "multiple";
}

void allreduce(int rank, int nranks, long bytes, int iters) {
  const int count = static_cast<int>(std::max(1L, bytes / 4));
  std::vector<float> send(static_cast<std::size_t>(count), 1.0f), recv(static_cast<std::size_t>(count));
  for (int i = 0; i < std::max(1, iters / 10); ++i) {
    MPI_Allreduce(send.data(), recv.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    MPI_Allreduce(send.data(), recv.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
  const double per_op_us = (MPI_Wtime() - t0) * 1e6 / iters;
  double sum = 0;
  MPI_Reduce(&per_op_us, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("bare allreduce bytes=%ld iters=%d time_us=%.4f thread_level=%s\n", bytes, iters,
                sum / nranks, level_name());
  }
}

void pingpong(int rank, long bytes, int iters) {
  std::vector<char> buf(static_cast<std::size_t>(std::max(1L, bytes)));
  const int n = static_cast<int>(buf.size());
  const int warm = std::max(1, iters / 100);
  std::vector<double> half_us;
  half_us.reserve(static_cast<std::size_t>(iters));
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < warm + iters; ++i) {
    if (rank == 0) {
      const double t0 = MPI_Wtime();
      MPI_Send(buf.data(), n, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(buf.data(), n, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (i >= warm) half_us.push_back((MPI_Wtime() - t0) * 1e6 / 2);
    } else if (rank == 1) {
      MPI_Recv(buf.data(), n, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf.data(), n, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) {
    double mean = 0;
    for (double v : half_us) mean += v;
    mean /= static_cast<double>(half_us.size());
    std::sort(half_us.begin(), half_us.end());
    // nearest rank, as fabcheck's percentiles (DESIGN §3)
    const std::size_t k = (half_us.size() * 5000 + 9999) / 10000 - 1;
    std::printf("bare pingpong bytes=%ld iters=%d time_us=%.4f p50_us=%.4f mean_us=%.4f thread_level=%s\n",
                bytes, iters, half_us[k], half_us[k], mean, level_name());
  }
}

}  // namespace

int main(int argc, char** argv) {
  int level = -1;
  long prep = 0;
  for (int i = 4; i < argc; ++i) {
    if (std::strncmp(argv[i], "prep=", 5) == 0) prep = std::atol(argv[i] + 5);
    if (std::strcmp(argv[i], "single") == 0) level = MPI_THREAD_SINGLE;
    if (std::strcmp(argv[i], "funneled") == 0) level = MPI_THREAD_FUNNELED;
    if (std::strcmp(argv[i], "multiple") == 0) level = MPI_THREAD_MULTIPLE;
  }
  if (level >= 0) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, level, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  for (long k = 0; k < prep && nranks >= 2; ++k) {
    char c = 0;
    if (rank == 0) MPI_Send(&c, 1, MPI_CHAR, 1, 9, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(&c, 1, MPI_CHAR, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  int rc = 0;
  if (argc < 4) {
    rc = usage();
  } else if (std::strcmp(argv[1], "allreduce") == 0) {
    allreduce(rank, nranks, std::atol(argv[2]), std::atoi(argv[3]));
  } else if (std::strcmp(argv[1], "pingpong") == 0 && nranks >= 2) {
    pingpong(rank, std::atol(argv[2]), std::atoi(argv[3]));
  } else {
    rc = usage();
  }
  MPI_Finalize();
  return rc;
}
