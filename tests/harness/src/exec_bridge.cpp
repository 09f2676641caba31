#include "exec_bridge.h"

#include "worker.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <poll.h>
#include <sstream>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

namespace kfdmp {
namespace {

bool to_u64(const std::string& s, uint64_t& out)
{
	if (s.empty() || s.size() > 20)
		return false;
	for (char c : s)
		if (c < '0' || c > '9')
			return false;
	errno = 0;
	out = std::strtoull(s.c_str(), nullptr, 10);
	return errno == 0;
}

std::vector<std::string> fields(const std::string& line)
{
	std::vector<std::string> f;
	std::istringstream ss(line);
	for (std::string w; ss >> w;)
		f.push_back(w);
	return f;
}

// The rest of the line after the first n fields.
std::string rest(const std::string& line, size_t n)
{
	size_t pos = 0;
	for (size_t i = 0; i < n; ++i) {
		pos = line.find_first_not_of(' ', pos);
		pos = pos == std::string::npos ? line.size() : line.find(' ', pos);
		if (pos == std::string::npos)
			return "";
	}
	pos = line.find_first_not_of(' ', pos);
	return pos == std::string::npos ? "" : line.substr(pos);
}

// A quoted excerpt of a line for an error message.
std::string quote(const std::string& line)
{
	std::string q;
	for (char c : line.substr(0, 160))
		q += (unsigned char)c < 0x20 ? '?' : c;
	return "\"" + q + (line.size() > 160 ? "...\"" : "\"");
}

std::string exit_text(int ws)
{
	if (WIFEXITED(ws))
		return "exited with status " + std::to_string(WEXITSTATUS(ws));
	if (WIFSIGNALED(ws))
		return std::string("was killed by signal ") + std::to_string(WTERMSIG(ws)) + " (" +
		       strsignal(WTERMSIG(ws)) + ")";
	return "ended";
}

uint64_t mono_ms()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return uint64_t(ts.tv_sec) * 1000 + uint64_t(ts.tv_nsec) / 1000000;
}

// `/bin/sh -c CMD` in its own process group, with pipes on its stdin and
// stdout. The group is killed when this object goes, on every path.
class Command {
public:
	Command(const std::string& cmd, const std::vector<std::pair<std::string, std::string>>& env)
	{
		int in[2], out[2];
		if (pipe2(in, O_CLOEXEC) != 0)
			throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
		if (pipe2(out, O_CLOEXEC) != 0) {
			close(in[0]);
			close(in[1]);
			throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
		}
		// The environment, built before fork().
		std::vector<std::string> envs;
		for (char** e = environ; *e; ++e) {
			const std::string kv(*e);
			bool overridden = false;
			for (const auto& [k, v] : env)
				overridden |= kv.compare(0, k.size() + 1, k + "=") == 0;
			if (!overridden)
				envs.push_back(kv);
		}
		for (const auto& [k, v] : env)
			envs.push_back(k + "=" + v);
		std::vector<char*> envp;
		for (auto& e : envs)
			envp.push_back(e.data());
		envp.push_back(nullptr);
		std::string sh = "/bin/sh", dash_c = "-c", command = cmd;
		char* argv[] = {sh.data(), dash_c.data(), command.data(), nullptr};
		const pid_t parent = getpid();
		pid_ = fork();
		if (pid_ < 0) {
			const int err = errno;
			for (int fd : {in[0], in[1], out[0], out[1]})
				close(fd);
			throw std::runtime_error(std::string("fork: ") + std::strerror(err));
		}
		if (pid_ == 0) {
			setpgid(0, 0);
			prctl(PR_SET_PDEATHSIG, SIGKILL); // sh itself; the command sees EOF on stdin
			if (getppid() != parent)
				_exit(127);
			signal(SIGPIPE, SIG_DFL);
			dup2(in[0], 0);
			dup2(out[1], 1);
			execve(argv[0], argv, envp.data());
			_exit(127);
		}
		setpgid(pid_, pid_); // the child does the same: whichever runs first wins
		worker_set_child_pgid(pid_);
		close(in[0]);
		close(out[1]);
		to_ = in[1];
		from_ = out[0];
	}
	Command(const Command&) = delete;
	Command& operator=(const Command&) = delete;
	~Command() { kill_all(); }

	pid_t pid() const { return pid_; }

	// false: the command no longer reads its stdin.
	bool send(const std::string& line)
	{
		const std::string s = line + "\n";
		size_t off = 0;
		while (off < s.size()) {
			const ssize_t n = write(to_, s.data() + off, s.size() - off);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return false;
			off += size_t(n);
		}
		return true;
	}

	// One line of its stdout (without the newline); false at EOF.
	bool receive(std::string& line)
	{
		for (;;) {
			if (take_line(line))
				return true;
			if (fill(line) == 0)
				return false;
		}
	}

	// One read() of its stdout into buf_: 1 read something, -1 interrupted,
	// 0 EOF or an error (then `line` holds the partial line, if any).
	int fill(std::string& line)
	{
		char chunk[4096];
		const ssize_t n = read(from_, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			return -1;
		if (n <= 0) {
			line = buf_;
			return 0;
		}
		buf_.append(chunk, size_t(n));
		return 1;
	}

	// receive() with a deadline (CLOCK_MONOTONIC ms): 1 a line, 0 EOF (or
	// the command exited and nothing more came; `line` holds a partial
	// line, if any), -1 the deadline passed.
	int receive_by(std::string& line, uint64_t deadline_ms)
	{
		bool exited = false;
		for (;;) {
			if (take_line(line))
				return 1;
			const uint64_t now = mono_ms();
			if (now >= deadline_ms)
				return -1;
			pollfd pfd{from_, POLLIN, 0};
			const int r = poll(&pfd, 1, exited ? 0 : int(std::min<uint64_t>(deadline_ms - now, 20)));
			if (r < 0 && errno == EINTR)
				continue;
			if (r > 0) {
				if (fill(line) == 0)
					return 0;
				continue;
			}
			if (r < 0 || exited) { // gone, and a process it left holds its stdout
				line = buf_;
				return 0;
			}
			exited = reap_if_exited();
		}
	}

	// Closes its stdin (EOF: the protocol's stop) and waits up to
	// timeout_ms for it to exit; returns its wait status, or -1 if it
	// did not exit in time (then it is killed).
	int finish(uint64_t timeout_ms)
	{
		close_stdin();
		const uint64_t deadline = mono_ms() + timeout_ms;
		int ws = 0;
		while (!reaped_) {
			const pid_t r = waitpid(pid_, &ws, WNOHANG);
			if (r == pid_) {
				reaped_ = true;
				status_ = ws;
				break;
			}
			if (r < 0 && errno != EINTR)
				break;
			if (mono_ms() >= deadline) {
				kill_all();
				return -1;
			}
			usleep(2000);
		}
		kill_all(); // whatever it left behind in its group
		return status_;
	}

	// The command's exit status after it closed its stdout (EOF): waits a
	// moment for it, else kills it.
	std::string why_gone()
	{
		const int ws = finish(1000);
		return ws < 0 ? "closed its stdout" : exit_text(ws);
	}

	void kill_all()
	{
		close_stdin();
		if (from_ >= 0) {
			close(from_);
			from_ = -1;
		}
		if (pid_ > 0) {
			kill(-pid_, SIGKILL);
			if (!reaped_) {
				int ws = 0;
				while (waitpid(pid_, &ws, 0) < 0 && errno == EINTR) {
				}
				reaped_ = true;
				status_ = ws;
			}
			worker_set_child_pgid(0);
		}
	}

	void close_stdin()
	{
		if (to_ >= 0) {
			close(to_);
			to_ = -1;
		}
	}

private:
	// A whole line from what was read, if there is one.
	bool take_line(std::string& line)
	{
		const auto nl = buf_.find('\n');
		if (nl != std::string::npos) {
			line = buf_.substr(0, nl);
			buf_.erase(0, nl + 1);
			if (!line.empty() && line.back() == '\r')
				line.pop_back();
			return true;
		}
		if (buf_.size() > 65536) { // no protocol line is this long: the command is printing something else
			line = buf_;
			buf_.clear();
			return true;
		}
		return false;
	}

	bool reap_if_exited()
	{
		int ws = 0;
		if (reaped_ || waitpid(pid_, &ws, WNOHANG) != pid_)
			return reaped_;
		reaped_ = true;
		status_ = ws;
		return true;
	}

	pid_t pid_ = 0;
	int to_ = -1, from_ = -1;
	bool reaped_ = false;
	int status_ = 0;
	std::string buf_;
};

class ExecWorkload final : public Workload {
public:
	explicit ExecWorkload(const WorkloadParams& p)
	    : index_(worker_index()), workers_(worker_count()), name_(p.name)
	{
		std::signal(SIGPIPE, SIG_IGN); // a dead command is an error message, not a signal
		if (!p.command[0])
			throw std::runtime_error(who() + "no command (--exec CMD)");
		device_ = "exec " + std::string(p.command);
		std::vector<std::pair<std::string, std::string>> env;
		const bool offer = exec_pipeline_offered(p);
		const std::vector<std::string> lines = exec_config_lines(p, index_, workers_, offer);
		for (const auto& l : lines)
			if (l.compare(0, 4, "env ") == 0) {
				const auto eq = l.find('=');
				env.emplace_back(l.substr(4, eq - 4), l.substr(eq + 1));
			}
		cmd_ = std::make_unique<Command>(p.command, env);
		for (const auto& l : lines)
			if (!cmd_->send(l))
				gone("while it was sent its configuration");
		if (!cmd_->send("config end"))
			gone("while it was sent its configuration");
		worker_set_activity("waiting for `kfdmp 1 ready` from the command");
		std::string line;
		if (!cmd_->receive(line))
			gone("before `ready`", line);
		const ExecLine l = parse_exec_line(line);
		if (l.kind == "ready") {
			gpu_time_ = l.gpu_time;
			pipeline_ = offer && l.pipeline; // unasked, it changes nothing
			if (!l.device.empty())
				device_ = l.device;
		} else if (l.kind == "unsupported") {
			throw Unavailable(who() + "the command cannot apply " + l.key + ": " + l.text);
		} else if (l.kind == "error") {
			throw std::runtime_error(who() + "the command failed to initialise: " + l.text);
		} else {
			throw std::runtime_error(who() + (l.kind == "bad" ? l.why : "`" + l.kind + "` before `ready`") +
						 ": " + quote(line));
		}
	}

	// Closed loop with `pipeline=1`: from the second query on (the first
	// runs before the start barrier, where nothing may wait in the
	// command's stdin), query k goes out with query k+1 behind it, so the
	// command finds its next query in its stdin when it writes `done k`.
	// Query k still ends when its `done` is read here.
	void query() override
	{
		const uint64_t seq = ++seq_;
		std::string q;
		const bool first_send = sent_ < seq;
		if (first_send) {
			q = "query " + std::to_string(seq);
			sent_ = seq;
		}
		if (pipeline_ && seq >= 2 && sent_ == seq) {
			q += (q.empty() ? "query " : "\nquery ") + std::to_string(seq + 1);
			sent_ = seq + 1;
		}
		worker_set_activity("waiting for `done " + std::to_string(seq) + "` from the command");
		if (!q.empty() && !cmd_->send(q))
			gone((first_send ? "before query " : "during query ") + std::to_string(seq));
		std::string line;
		if (!cmd_->receive(line))
			gone("during query " + std::to_string(seq), line);
		// The common case without the general parser: "done SEQ[ gpu_ns=N]".
		if (line.compare(0, 5, "done ") == 0) {
			const char* p = line.c_str() + 5;
			char* end = nullptr;
			const unsigned long long got = std::strtoull(p, &end, 10);
			if (end != p && got == seq && *end == '\0' && !gpu_time_) {
				gpu_ns_ = 0;
				return;
			}
			if (end != p && got == seq && std::strncmp(end, " gpu_ns=", 8) == 0 && end[8] >= '0' && end[8] <= '9') {
				char* e2 = nullptr;
				errno = 0;
				const unsigned long long ns = std::strtoull(end + 8, &e2, 10);
				if (*e2 == '\0' && errno != ERANGE) {
					gpu_ns_ = ns;
					return;
				}
			}
		}
		const ExecLine l = parse_exec_line(line);
		if (l.kind == "done" && l.seq == seq) {
			if (gpu_time_ && !l.has_gpu_ns)
				throw std::runtime_error(who() + "`ready gpu_time=1` but a `done` without gpu_ns: " +
							 quote(line));
			gpu_ns_ = l.has_gpu_ns ? l.gpu_ns : 0;
			return;
		}
		if (l.kind == "fail")
			throw std::runtime_error(who() + "query " + std::to_string(l.seq) + " failed: " + l.text);
		if (l.kind == "bad")
			throw std::runtime_error(who() + l.why + ": " + quote(line));
		throw std::runtime_error(who() + "expected `done " + std::to_string(seq) + "`, got " + quote(line));
	}

	// Nothing to check on the CPU: the end of the run. `stop`, then the
	// command must exit 0 (within 10 s). A pipelined command has one query
	// more than the run asked for (sent ahead of the last one): it may
	// answer it, `done K` or `fail K`, before it reads `stop`; that line is
	// read here, a failure fails the run, anything else is a protocol
	// error; exiting without answering it is fine.
	void verify() override
	{
		const uint64_t deadline = mono_ms() + 10000;
		if (sent_ > seq_) {
			const std::string ahead = std::to_string(sent_);
			worker_set_activity("waiting for `done " + ahead + "` (the query sent ahead) and the exit after `stop`");
			if (!cmd_->send("stop"))
				gone("before `stop`");
			cmd_->close_stdin();
			std::string line;
			const int got = cmd_->receive_by(line, deadline);
			if (got < 0) {
				cmd_->kill_all();
				throw std::runtime_error(who() + "the command did not exit within 10 s of `stop` (killed)");
			}
			if (got > 0 || !line.empty())
				extra_line(line);
		} else {
			worker_set_activity("waiting for the command to exit after `stop`");
			if (!cmd_->send("stop"))
				gone("before `stop`");
		}
		const uint64_t now = mono_ms();
		const int ws = cmd_->finish(deadline > now ? deadline - now : 0);
		if (ws < 0)
			throw std::runtime_error(who() + "the command did not exit within 10 s of `stop` (killed)");
		if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
			throw std::runtime_error(who() + "the command " + exit_text(ws) + " after `stop`");
	}

	std::string device() const override { return device_; }
	bool gpu_time() const override { return gpu_time_; }
	uint64_t last_gpu_ns() const override { return gpu_ns_; }

private:
	std::string who() const { return "exec worker " + std::to_string(index_) + " (" + name_ + "): "; }

	// The answer to the query sent ahead of the last one, read after `stop`.
	void extra_line(const std::string& line)
	{
		const ExecLine l = parse_exec_line(line);
		if (l.kind == "done" && l.seq == sent_) {
			if (gpu_time_ && !l.has_gpu_ns)
				throw std::runtime_error(who() + "`ready gpu_time=1` but a `done` without gpu_ns: " +
							 quote(line));
			return;
		}
		if (l.kind == "fail" && l.seq == sent_)
			throw std::runtime_error(who() + "query " + std::to_string(l.seq) +
						 " (sent ahead of the last one, answered after `stop`) failed: " + l.text);
		if (l.kind == "bad")
			throw std::runtime_error(who() + l.why + ": " + quote(line));
		throw std::runtime_error(who() + "expected `done " + std::to_string(sent_) +
					 "` (the query sent ahead) or the exit after `stop`, got " + quote(line));
	}

	[[noreturn]] void gone(const std::string& when, const std::string& partial = "")
	{
		const std::string why = cmd_->why_gone();
		throw std::runtime_error(who() + "the command " + why + " " + when +
					 (partial.empty() ? "" : "; its last output: " + quote(partial)));
	}

	uint32_t index_, workers_;
	std::string name_, device_;
	std::unique_ptr<Command> cmd_;
	uint64_t seq_ = 0, gpu_ns_ = 0;
	uint64_t sent_ = 0; // the last SEQ sent: seq_, or seq_ + 1 with a query sent ahead
	bool gpu_time_ = false;
	bool pipeline_ = false; // offered in `hello` and announced in `ready`
};

} // namespace

ExecLine parse_exec_line(const std::string& line)
{
	ExecLine l;
	l.kind = "bad";
	const std::vector<std::string> f = fields(line);
	if (f.empty()) {
		l.why = "an empty line is not a protocol line (logs go to stderr)";
		return l;
	}
	if (f[0] == "kfdmp") {
		uint64_t version = 0;
		if (f.size() < 3 || !to_u64(f[1], version)) {
			l.why = "not a protocol line (logs go to stderr)";
			return l;
		}
		if (version != uint64_t(exec_protocol_version)) {
			l.why = "protocol version " + f[1] + ", this kfdmp speaks " + std::to_string(exec_protocol_version);
			return l;
		}
		if (f[2] == "ready") {
			for (size_t i = 3; i < f.size(); ++i) {
				if (f[i] == "gpu_time=1")
					l.gpu_time = true;
				else if (f[i] == "gpu_time=0")
					l.gpu_time = false;
				else if (f[i] == "pipeline=1")
					l.pipeline = true;
				else if (f[i] == "pipeline=0")
					l.pipeline = false;
				else if (f[i].compare(0, 7, "device=") == 0)
					l.device = f[i].substr(7);
				else {
					l.why = "unknown field " + quote(f[i]) + " in `ready`";
					return l;
				}
			}
			l.kind = "ready";
		} else if (f[2] == "unsupported" && f.size() >= 4) {
			l.kind = "unsupported";
			l.key = f[3];
			l.text = rest(line, 4);
			if (l.text.empty())
				l.text = "(no reason given)";
		} else if (f[2] == "error") {
			l.kind = "error";
			l.text = rest(line, 3);
			if (l.text.empty())
				l.text = "(no reason given)";
		} else {
			l.why = "not a protocol line (logs go to stderr)";
		}
		return l;
	}
	if (f[0] == "done" || f[0] == "fail") {
		if (f.size() < 2 || !to_u64(f[1], l.seq)) {
			l.why = "`" + f[0] + "` without a query number";
			return l;
		}
		if (f[0] == "fail") {
			l.kind = "fail";
			l.text = rest(line, 2);
			if (l.text.empty())
				l.text = "(no reason given)";
			return l;
		}
		for (size_t i = 2; i < f.size(); ++i) {
			if (f[i].compare(0, 7, "gpu_ns=") == 0 && to_u64(f[i].substr(7), l.gpu_ns)) {
				l.has_gpu_ns = true;
			} else {
				l.why = "bad field " + quote(f[i]) + " in `done`";
				return l;
			}
		}
		l.kind = "done";
		return l;
	}
	l.why = "not a protocol line (logs go to stderr)";
	return l;
}

bool exec_pipeline_offered(const WorkloadParams& p)
{
	const char* env = std::getenv("KFDMP_EXEC_PIPELINE");
	return p.rate <= 0 && !(env && std::strcmp(env, "0") == 0);
}

std::vector<std::string> exec_config_lines(const WorkloadParams& p, uint32_t index, uint32_t workers, bool pipeline)
{
	std::vector<std::string> lines = {"kfdmp " + std::to_string(exec_protocol_version) + " hello index=" +
					  std::to_string(index) + " workers=" + std::to_string(workers) +
					  (pipeline ? " pipeline=1" : "")};
	std::istringstream ss(std::string(p.exec_config, strnlen(p.exec_config, sizeof p.exec_config)));
	for (std::string l; std::getline(ss, l);)
		if (!l.empty())
			lines.push_back(l);
	return lines;
}

std::unique_ptr<Workload> make_exec_workload(const WorkloadParams& p) { return std::make_unique<ExecWorkload>(p); }

} // namespace kfdmp
