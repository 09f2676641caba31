// Parsers for what amdkfd prints in debugfs, written from the driver's
// printing code (Linux 6.12 and ROCm 6.4's amdgpu-dkms 6.12.12; both print
// the same):
//
//   kfd/hqds  kfd_debugfs_hqds_by_device(): "Node %u, gpu_id %x:" per GPU,
//             then dqm_debugfs_hqds(): per XCC "   Inst %d, HIQ on MEC %d
//             Pipe %d Queue %d", " Inst %d,  CP Pipe %d, Queue %d" per CP
//             slot, "  SDMA Engine %d, RLC %d" per SDMA queue, each followed
//             by seq_reg_dump() rows "    %08x: %08x ..." (byte address of
//             the first register, up to 8 values of consecutive registers);
//             " Device is stopped" when the scheduler is not running.
//             A CP dump (kgd_gfx_v9_hqd_dump) covers CP_MQD_BASE_ADDR (0x1245)
//             .. CP_HQD_PQ_WPTR_HI, so the third register is CP_HQD_ACTIVE
//             (0x1247); bit 0 set = a queue is mapped there. An SDMA dump
//             starts at SDMA_RLC0_RB_CNTL, bit 0 = RB_ENABLE.
//   kfd/mqds  kfd_debugfs_mqds_by_process(): "Process %d PASID %d:" (ROCm)
//             or "Process %d PASID 0x%x:" (6.12), pqm_debugfs_mqds():
//             "  Compute queue on device %x", "  SDMA queue on device %x",
//             "  DIQ on device %x", then seq_hex_dump() of the MQD, once per
//             XCC for compute queues (each dump restarts at offset 0).
//             struct v9_mqd: dword 128/129 cp_mqd_base_addr, 130 cp_hqd_active.
//   kfd/rls   kfd_debugfs_rls_by_device(): "Node %u, gpu_id %x:", then
//             pm_debugfs_runlist(): "  No active runlist" or a seq_hex_dump()
//             of the runlist IB: PM4 type-3 packets MAP_PROCESS (0xA1),
//             MAP_QUEUES (0xA2), RUN_LIST (0xA5, chains when oversubscribed).
#pragma once
#include "json.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kfdmp {

struct DumpParseError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// byte address (or offset) -> value, in printed order
using RegRows = std::vector<std::pair<uint32_t, uint32_t>>;

struct HqdSlot {
	enum class Kind { hiq, cp, sdma } kind = Kind::cp;
	uint32_t node = 0, gpu_id = 0;
	int inst = -1, mec = -1, pipe = -1, queue = -1; // HIQ and CP
	int engine = -1, rlc = -1;                      // SDMA
	RegRows regs;
	bool active = false;   // CP_HQD_ACTIVE bit 0 / SDMA RB_ENABLE (may be stale under HWS)
	uint64_t mqd_addr = 0; // CP_MQD_BASE_ADDR (HIQ, CP); 0 for SDMA
};

struct HqdNode {
	uint32_t node = 0, gpu_id = 0;
	bool stopped = false;
};

struct HqdDump {
	std::vector<HqdNode> nodes;
	std::vector<HqdSlot> slots;
};

// Throws DumpParseError (with the line number) on a line the driver does
// not print.
HqdDump parse_hqds(std::string_view text);
// Counts per node: CP slots, active CP HQDs (total, per XCC instance, per
// pipe), CP slots with a non-zero MQD address, HIQ and SDMA separately.
json::Value hqds_json(const HqdDump& d);

struct MqdQueue {
	std::string type; // compute | sdma | diq | bad
	uint32_t gpu_id = 0;
	std::vector<std::vector<uint32_t>> mqds; // dwords of each MQD (one per XCC for compute)
	std::vector<uint64_t> mqd_addrs;         // compute: cp_mqd_base_addr of each
	bool active = false;                     // compute: cp_hqd_active of any
};

struct MqdProcess {
	int64_t pid = 0;
	uint32_t pasid = 0;
	std::vector<MqdQueue> queues;
};

std::vector<MqdProcess> parse_mqds(std::string_view text);
json::Value mqds_json(const std::vector<MqdProcess>& p);
// For each compute MQD: the HQD slot holding it (same CP_MQD_BASE_ADDR), or
// none. JSON: [{pid, queue, xcc, mqd_addr, node, inst, pipe, queue_slot, active} ...]
json::Value map_mqds_to_hqds(const std::vector<MqdProcess>& p, const HqdDump& h);

struct RlPacket {
	uint32_t opcode = 0;
	std::vector<uint32_t> dwords; // header included
};

struct RlNode {
	uint32_t node = 0, gpu_id = 0;
	bool active = false; // false: "No active runlist"
	std::vector<uint32_t> ib;
	std::vector<RlPacket> packets;
};

std::vector<RlNode> parse_rls(std::string_view text);
// Per node: processes (MAP_PROCESS with pasid), queues (MAP_QUEUES: engine,
// queue type, doorbell, MQD address), whether the runlist chains (RUN_LIST
// inside the IB: oversubscribed).
json::Value rls_json(const std::vector<RlNode>& n);

// kfd sysfs queues/<id>/type is enum kfd_queue_type: the name of a value.
std::string queue_type_name(long type);

} // namespace kfdmp
