// The CU mask of --cu-split / --cu-split-xcc (HIP's hipExtStreamCreateWithCUMask).
// On gfx 9.4.3 the driver hands mask bit i to XCC (i mod number of XCCs)
// (mqd_symmetrically_map_cu_mask() in kfd_mqd_manager.c), so a contiguous
// range of bits spreads one process over every XCC and its L2. With xccs > 0
// process `index` of `count` gets an equal share of every XCC instead:
// local CUs [index*c/count, (index+1)*c/count) of each XCC (c = cus / xccs),
// local CU l of XCC x being bit l*xccs + x. xccs == 0: the contiguous range
// [index*cus/count, (index+1)*cus/count). Pure, unit-tested.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kfdmp {

inline std::vector<uint32_t> cu_split_mask(uint32_t cus, uint32_t index, uint32_t count, uint32_t xccs)
{
	if (count == 0 || index >= count)
		throw std::invalid_argument("--cu-split: bad process index");
	std::vector<uint32_t> mask((cus + 31) / 32, 0);
	auto set = [&](uint32_t bit) { mask[bit / 32] |= 1u << (bit % 32); };
	if (xccs == 0) {
		const uint32_t a = uint32_t(uint64_t(index) * cus / count), b = uint32_t(uint64_t(index + 1) * cus / count);
		if (a == b)
			throw std::invalid_argument("--cu-split: more processes than CUs");
		for (uint32_t cu = a; cu < b; ++cu)
			set(cu);
		return mask;
	}
	if (cus % xccs)
		throw std::invalid_argument("--cu-split-xcc: " + std::to_string(cus) + " CUs do not divide into " +
					    std::to_string(xccs) + " XCCs");
	const uint32_t c = cus / xccs;
	const uint32_t a = uint32_t(uint64_t(index) * c / count), b = uint32_t(uint64_t(index + 1) * c / count);
	if (a == b)
		throw std::invalid_argument("--cu-split-xcc: more processes than CUs per XCC (" + std::to_string(c) + ")");
	for (uint32_t l = a; l < b; ++l)
		for (uint32_t x = 0; x < xccs; ++x)
			set(l * xccs + x);
	return mask;
}

} // namespace kfdmp
