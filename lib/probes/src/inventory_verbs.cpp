// libibverbs backend of the inventory (ibv_query_device(3), ibv_query_port(3)). Compiled only when
// FABCHECK_HAVE_IBVERBS.
#include <infiniband/verbs.h>

#include <array>
#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstring>

#include "fabcheck/probes/inventory.hpp"
#include "verbs_mtu.hpp"

namespace fabcheck::probes {

namespace {

// ibv_port_attr.active_width bitmask → lanes; active_speed → Gb/s per lane (NCCL net_ib ibvWidths/ibvSpeeds).
// Each field has one bit set: bit i is the table's entry i; 0 for no bit, several or one past the table.
template <class V, std::size_t N>
V by_bit(unsigned bits, const std::array<V, N>& table) {
  if (!std::has_single_bit(bits)) return V{};
  const auto i = static_cast<std::size_t>(std::countr_zero(bits));
  return i < N ? table[i] : V{};
}

int lanes(unsigned w) {
  return by_bit(w, std::array<int, 5>{1, 4, 8, 12, 2});
}

double lane_gbit(unsigned s) {
  return by_bit(s, std::array<double, 9>{2.5, 5.0, 10.0, 10.0, 14.0, 25.0, 50.0, 100.0, 200.0});
}

class SystemVerbs final : public VerbsBackend {
 public:
  model::VerbsListing list() const override {
    model::VerbsListing out;
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
      model::VerbsDevice d;
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
          model::VerbsPort vp;
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
