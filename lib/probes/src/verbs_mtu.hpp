#pragma once
/// @file The MTU enum of libibverbs in bytes and back: private to the files compiled with libibverbs
/// (inventory_verbs.cpp, nics_verbs.cpp); never included by a public header.
#include <infiniband/verbs.h>

namespace fabcheck::probes::detail {

/// ibv_mtu → bytes (IBV_MTU_256 … IBV_MTU_4096, verbs.h); 0 for a value outside the enum.
inline int verbs_mtu_to_bytes(ibv_mtu m) {
  switch (m) {
    case IBV_MTU_256:
      return 256;
    case IBV_MTU_512:
      return 512;
    case IBV_MTU_1024:
      return 1024;
    case IBV_MTU_2048:
      return 2048;
    case IBV_MTU_4096:
      return 4096;
  }
  return 0;
}

/// bytes → ibv_mtu; anything but 256, 512, 1024 or 2048 is 4096 (the largest verbs names).
inline ibv_mtu verbs_mtu_of_bytes(int b) {
  switch (b) {
    case 256:
      return IBV_MTU_256;
    case 512:
      return IBV_MTU_512;
    case 1024:
      return IBV_MTU_1024;
    case 2048:
      return IBV_MTU_2048;
    default:
      return IBV_MTU_4096;
  }
}

}  // namespace fabcheck::probes::detail
