#include "signal_socket.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

namespace kfdmp::sched {

namespace {

sockaddr_un make_addr(const std::string& path)
{
	sockaddr_un a;
	std::memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	if (path.empty() || path.size() >= sizeof(a.sun_path))
		throw std::runtime_error("socket path must have 1.." + std::to_string(sizeof(a.sun_path) - 1) +
					 " characters: '" + path + "'");
	std::memcpy(a.sun_path, path.c_str(), path.size());
	return a;
}

} // namespace

SignalSocket::SignalSocket(std::string path, unsigned mode) : path_(std::move(path))
{
	sockaddr_un a = make_addr(path_);
	struct stat st;
	if (lstat(path_.c_str(), &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			throw std::runtime_error(path_ + " exists and is not a socket; not replacing it");
		unlink(path_.c_str());
	}
	fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd_ < 0)
		throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
	int on = 1;
	if (setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) != 0 ||
	    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || chmod(path_.c_str(), mode) != 0) {
		int e = errno;
		close(fd_);
		fd_ = -1;
		throw std::runtime_error("cannot listen on " + path_ + ": " + std::strerror(e));
	}
}

SignalSocket::~SignalSocket()
{
	if (fd_ >= 0) {
		close(fd_);
		unlink(path_.c_str());
	}
}

std::optional<Report> SignalSocket::receive()
{
	char buf[64];
	char ctl[CMSG_SPACE(sizeof(ucred))];
	iovec iov{buf, sizeof(buf) - 1};
	msghdr m;
	std::memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl;
	m.msg_controllen = sizeof(ctl);
	ssize_t n = recvmsg(fd_, &m, 0);
	if (n < 0)
		return std::nullopt;
	Report r;
	for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
			ucred cred;
			std::memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			r.pid = cred.pid;
		}
	}
	r.text.assign(buf, size_t(n));
	while (!r.text.empty() && (r.text.back() == '\n' || r.text.back() == '\0'))
		r.text.pop_back();
	std::string word = r.text.substr(0, r.text.find(' '));
	r.valid = word == "busy" || word == "idle";
	r.busy = word == "busy";
	if (r.valid && word.size() < r.text.size()) {
		std::string num = r.text.substr(word.size() + 1);
		char* end = nullptr;
		long long v = std::strtoll(num.c_str(), &end, 10);
		if (num.empty() || *end || v < 0)
			r.valid = false;
		else
			r.sent_ns = v;
	}
	return r;
}

CriticalNotifier::CriticalNotifier(std::string path) : path_(std::move(path))
{
	fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	// Blocking for at most 10 ms instead of MSG_DONTWAIT: a transition is
	// not lost when the daemon's queue (net.unix.max_dgram_qlen) is full for
	// a moment; without a daemon the send still fails at once.
	timeval tv{0, 10000};
	if (fd_ >= 0)
		setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

CriticalNotifier::~CriticalNotifier()
{
	if (fd_ >= 0)
		close(fd_);
}

int CriticalNotifier::send_stamped(const char* word)
{
	return send(std::string(word) + " " + std::to_string(to_ns(SteadyClock().now())));
}

int CriticalNotifier::send(const std::string& text)
{
	if (fd_ < 0)
		return EBADF;
	sockaddr_un a;
	try {
		a = make_addr(path_);
	} catch (const std::exception&) {
		return EINVAL;
	}
	if (sendto(fd_, text.data(), text.size(), 0, reinterpret_cast<sockaddr*>(&a), sizeof(a)) < 0)
		return errno;
	return 0;
}

} // namespace kfdmp::sched
