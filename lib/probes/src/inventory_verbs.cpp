// libibverbs backend of the inventory (ibv_query_device(3), ibv_query_port(3)). Compiled only when
// FABCHECK_HAVE_IBVERBS.
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstring>

#include "fabcheck/probes/inventory.hpp"
#include "verbs_mtu.hpp"

namespace fabcheck::probes {

namespace {

// ibv_port_attr.active_width bitmask → lanes; active_speed → Gb/s per lane (NCCL net_ib ibvWidths/ibvSpeeds).
int lanes(unsigned w) {
  switch (w) {
    case 1:
      return 1;
    case 2:
      return 4;
    case 4:
      return 8;
    case 8:
      return 12;
    case 16:
      return 2;
  }
  return 0;
}

double lane_gbit(unsigned s) {
  switch (s) {
    case 1:
      return 2.5;
    case 2:
      return 5.0;
    case 4:
      return 10.0;
    case 8:
      return 10.0;
    case 16:
      return 14.0;
    case 32:
      return 25.0;
    case 64:
      return 50.0;
    case 128:
      return 100.0;
    case 256:
      return 200.0;
  }
  return 0;
}

class SystemVerbs final : public VerbsBackend {
 public:
  VerbsListing list() const override {
    VerbsListing out;
    int num = 0;
    errno = 0;
    ibv_device** list = ibv_get_device_list(&num);
    if (!list) {
      // ENOSYS: no kernel RDMA stack (no /sys/class/infiniband_verbs) = no RDMA hardware, not an error.
      out.status = "unavailable";
      out.err = errno;
      out.error_text = std::strerror(errno != 0 ? errno : ENOSYS);
      return out;
    }
    out.status = "ok";
    for (int i = 0; i < num; ++i) {
      VerbsDevice d;
      d.name = ibv_get_device_name(list[i]);
      ibv_context* ctx = ibv_open_device(list[i]);
      if (!ctx) {
        d.error = std::string("ibv_open_device: ") + std::strerror(errno);
        out.devices.push_back(std::move(d));
        continue;
      }
      ibv_device_attr attr{};
      if (ibv_query_device(ctx, &attr) != 0) {
        d.error = std::string("ibv_query_device: ") + std::strerror(errno);
      } else {
        for (int p = 1; p <= attr.phys_port_cnt; ++p) {
          ibv_port_attr pa{};
          if (ibv_query_port(ctx, static_cast<uint8_t>(p), &pa) != 0) continue;
          VerbsPort vp;
          vp.port = p;
          vp.state = static_cast<int>(pa.state);
          vp.active_mtu_bytes = detail::verbs_mtu_to_bytes(pa.active_mtu);
          vp.link_layer = pa.link_layer;
          vp.rate_gbit = lanes(pa.active_width) * lane_gbit(pa.active_speed);
          vp.gid_tbl_len = pa.gid_tbl_len;
          d.ports.push_back(vp);
        }
      }
      ibv_close_device(ctx);
      out.devices.push_back(std::move(d));
    }
    ibv_free_device_list(list);
    return out;
  }
};

}  // namespace

std::unique_ptr<VerbsBackend> make_system_verbs() {
  return std::make_unique<SystemVerbs>();
}

}  // namespace fabcheck::probes
