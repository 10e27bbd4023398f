"""The network the user stated ("8 * 100 Gbps RoCE NICs", "a 1 Gbit/s NIC"), as the link tools (nccl-expected, allreduce) take it."""

from __future__ import annotations

# The fabric and port speed the user stated, as the link tools name them; a speed a fabric does not come in is passed as Gbit/s.
INTER_FABRICS = {("roce", 100): "roce-100", ("roce", 200): "roce-200", ("roce", 400): "roce-400", ("infiniband", 200): "infiniband-hdr",
                 ("infiniband", 400): "infiniband-ndr", ("infiniband", 800): "infiniband-xdr", ("ethernet", 25): "ethernet-25", ("ethernet", 100): "ethernet-100"}


def stated_network(s, gpus_per_node: int) -> dict:
    """The link tools' inputs for the network the user has: "8 * 100 Gbps RoCE NICs", "a 1 Gbit/s NIC"."""
    out: dict = {}
    if s.nic_gbps:
        fabric = INTER_FABRICS.get((s.fabric or ("ethernet" if s.nic_gbps < 100 else ""), int(s.nic_gbps)))
        if fabric:
            out["inter_fabric"] = fabric
        ports = s.nics_per_node or (gpus_per_node if s.fabric in ("roce", "infiniband") else 1)
        out["nic_gbps_per_gpu"] = s.nic_gbps * ports / gpus_per_node
        if s.nics_per_node:
            out["nics_per_node"] = s.nics_per_node
    return out
