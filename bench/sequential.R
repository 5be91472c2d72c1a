# An independent oracle for fak's decision (issue 24), in R alone: the one
# verdict rule and the --until-decisive stopping rule, simulated.
#
#   Rscript bench/sequential.R [SIMS [FAMILIES]]   the tables (default 2000, 1000)
#   Rscript bench/sequential.R --plan R N          the looks fak plans for an
#                                                  envelope of R repetitions and
#                                                  --max-repetitions N: "n level"
#                                                  lines (tests/cli/scripts/
#                                                  sequential-plan.sh compares them
#                                                  with fak's receipts)
#
# The verdict, as fak takes it (src/stats/verdict.c): the exact Hodges-Lehmann
# interval at level L of log(candidate) - log(baseline), chosen as R's
# wilcox.test(log(c), log(b), conf.int = TRUE, exact = TRUE, conf.level = L)
# chooses it (the narrowest at or above L), against g = log(1 + T / 100):
# faster when its lower end > g, slower when its upper end < -g, equivalent
# when it lies within [-g, g], else undecided (also when n + n values cannot
# reach L). The interval is wilcox.test's own order statistics (qwilcox,
# pwilcox, diffs[qu] and diffs[ql + 1], as in stats:::wilcox.test.default),
# cached per (n, level) because wilcox.test itself takes about 90 ms per call at
# 60 + 60 (R frees its counts table above 50 per arm); a self-check compares
# the cached form with wilcox.test on random draws at every (n, level) used
# before anything is simulated.
#
# The looks (stats_plan_looks, re-implemented here from its C code): n = r,
# 2r, 4r, ... below N, then N; the last look gets half of the error 1 - L, the
# earlier ones share the other half equally; an early look whose n + n values
# cannot reach its level is dropped and the error split again, until nothing
# changes. The experiment stops at the first decided look.
#
# Data: each repetition's tok/s is log-normal, log(x) ~ N(log(mu), s) per arm,
# the candidate's shifted by log(ratio); repetitions are independent (what
# interleaving aims at; drifts and outliers of a real machine are not modelled).
# Designs: fixed 10 + 10 at L = 0.90, and --until-decisive with r = 3 (the CPU
# example envelope's repetitions) and N = 60.
# A false faster is a faster verdict when the true ratio is at most g: the
# null (ratio 1) and the worst case, ratio = g exactly (the threshold itself).
# Retry 15: families of 15 independent attempts of one lever; "any" is the
# share of families in which some attempt is faster at its own level (a user
# who retries until a pass); "widened" the share in which some attempt is
# faster at the Bonferroni level 1 - (1 - l) / 15, l being the attempt's level
# (0.90 for the fixed design, its last look's for a sequential one), on the
# repetitions the attempt ran: what fak's promotion checks; "widened/k" the
# share in which some attempt k is faster at 1 - (1 - l) / k: a user who
# promotes at the first attempt that passes, widened for the k attempts so far.
options(warn = 1)
L <- 0.90

# ---- the plan -------------------------------------------------------------
min_reps <- function(level) {	# stats_min_repetitions
	cc <- 1
	n <- 1
	while (n < 1000) {
		cc <- cc * (2 * n) * (2 * n - 1) / (n * n)
		if (1 - 2 / cc >= level * (1 - 1e-12)) break
		n <- n + 1
	}
	n
}

plan_looks <- function(first, max, level = L) {	# stats_plan_looks
	reps <- c()
	n <- first
	while (length(reps) < 31 && n < max) {
		reps <- c(reps, n)
		n <- n * 2
	}
	reps <- c(reps, max)
	nr <- length(reps)
	keep <- rep(TRUE, nr)
	lev <- numeric(nr)
	repeat {
		early <- sum(keep[-nr])
		dropped <- FALSE
		for (i in seq_len(nr)) {
			err <- if (i == nr) (if (early > 0) (1 - level) / 2 else 1 - level)
			       else (1 - level) / 2 / early
			lev[i] <- 1 - err
			if (i < nr && keep[i] && min_reps(lev[i]) > reps[i]) {
				keep[i] <- FALSE
				dropped <- TRUE
			}
		}
		if (!dropped) break
	}
	data.frame(n = reps[keep], level = lev[keep])
}

args <- commandArgs(trailingOnly = TRUE)
if (length(args) >= 1 && args[1] == "--plan") {
	p <- plan_looks(as.integer(args[2]), as.integer(args[3]))
	for (i in seq_len(nrow(p))) cat(sprintf("%d %.17g\n", p$n[i], p$level[i]))
	quit(status = 0)
}
sims <- if (length(args) >= 1) as.integer(args[1]) else 2000L
families <- if (length(args) >= 2) as.integer(args[2]) else 1000L
set.seed(20261202)
t_start <- proc.time()[["elapsed"]]

# ---- the interval: wilcox.test's order statistics, cached -----------------
ci_cache <- new.env()
ci_rule <- function(n, level) {
	key <- sprintf("%d/%.17g", n, level)
	r <- ci_cache[[key]]
	if (is.null(r)) {
		alpha <- 1 - level
		qu <- qwilcox(alpha / 2, n, n)
		if (qu == 0) qu <- 1
		ql <- n * n - qu
		achieved <- 1 - 2 * pwilcox(trunc(qu) - 1, n, n)
		r <- list(qu = qu, ql = ql, achieved = achieved,
			  attained = achieved >= level * (1 - 1e-12))
		assign(key, r, envir = ci_cache)
	}
	r
}
ci <- function(lc, lb, level) {	# lc, lb: logs of equal length
	n <- length(lc)
	r <- ci_rule(n, level)
	d <- as.vector(outer(lc, lb, "-"))
	lo <- sort(d, partial = r$qu)[r$qu]
	hi <- sort(d, partial = r$ql + 1)[r$ql + 1]
	c(lo, hi, r$attained)
}
verdict <- function(lc, lb, level, g) {
	x <- ci(lc, lb, level)
	if (!x[3]) return("undecided")
	if (x[1] > g) return("faster")
	if (x[2] < -g) return("slower")
	if (x[1] >= -g && x[2] <= g) return("equivalent")
	"undecided"
}

# ---- the designs ----------------------------------------------------------
fixed_n <- 10
seq_r <- 3
seq_N <- 60
looks <- plan_looks(seq_r, seq_N)

# one experiment: returns c(verdict, n per arm, level of the decision)
run_fixed <- function(lc, lb, g) {
	list(v = verdict(lc[1:fixed_n], lb[1:fixed_n], L, g), n = fixed_n, level = L)
}
run_seq <- function(lc, lb, g) {
	for (i in seq_len(nrow(looks))) {
		n <- looks$n[i]
		v <- verdict(lc[1:n], lb[1:n], looks$level[i], g)
		if (v != "undecided" || i == nrow(looks))
			return(list(v = v, n = n, level = looks$level[i]))
	}
}
draw <- function(n, ratio, s) list(c = log(ratio) + rnorm(n, 0, s), b = rnorm(n, 0, s))

# ---- self-check: the cached interval is wilcox.test's ---------------------
check_levels <- unique(rbind(looks, data.frame(n = fixed_n, level = L),
			     data.frame(n = fixed_n, level = 1 - (1 - L) / 15),
			     data.frame(n = looks$n, level = 1 - (1 - looks$level) / 15)))
bad <- 0
for (k in seq_len(nrow(check_levels))) {
	n <- check_levels$n[k]
	lev <- check_levels$level[k]
	for (j in 1:(if (n > 50) 3 else 20)) {
		d <- draw(n, 1.03, 0.05)
		w <- suppressWarnings(wilcox.test(d$c, d$b, conf.int = TRUE, exact = TRUE,
						  conf.level = lev))
		ours <- ci(d$c, d$b, lev)
		if (any(ours[1:2] != as.vector(w$conf.int))) bad <- bad + 1
	}
}
if (bad) stop(bad, " cached intervals differ from wilcox.test's")

# ---- the tables -----------------------------------------------------------
cat(sprintf("fak's decision simulated in R %s.%s: L = %.2f, log-normal noise, %s\n",
	    R.version$major, R.version$minor, L, paste(sims, "experiments a row")))
cat(sprintf("self-check: the cached interval equals wilcox.test's at all %d (n, level) used\n",
	    nrow(check_levels)))
cat(sprintf("until-decisive r = %d, N = %d: looks (n: level) %s\n", seq_r, seq_N,
	    paste(sprintf("%d: %.4f", looks$n, looks$level), collapse = ", ")))
for (rn in list(c(1, 60), c(5, 60), c(10, 60), c(3, 40), c(3, 100)))
	cat(sprintf("  (plan for r = %d, N = %d: %s)\n", rn[1], rn[2],
		    with(plan_looks(rn[1], rn[2]),
			 paste(sprintf("%d: %.4f", n, level), collapse = ", "))))
cat("\n")

scenario <- function(design, Tp, ratio, s) {
	g <- log1p(Tp / 100)
	run <- if (design == "fixed") run_fixed else run_seq
	v <- character(sims)
	n <- integer(sims)
	for (i in seq_len(sims)) {
		d <- draw(seq_N, ratio, s)
		x <- run(d$c, d$b, g)
		v[i] <- x$v
		n[i] <- x$n
	}
	sh <- function(w) 100 * mean(v == w)
	sprintf("%-15s %4.0f%% %6.3f %5.0f%%  %6.1f%% %6.1f%% %6.1f%% %6.1f%% %6.1f",
		if (design == "fixed") "fixed 10+10" else "until-decisive",
		Tp, ratio, 100 * s, sh("faster"), sh("slower"), sh("equivalent"),
		sh("undecided"), mean(n))
}
cat("design          T     ratio noise   faster slower  equiv  undec  mean n/arm\n")
rows <- list()
for (Tp in c(1, 2)) {
	for (s in c(0.01, 0.03, 0.06, 0.10))
		for (design in c("fixed", "seq")) rows[[length(rows) + 1]] <- c(design, Tp, 1, s)
	for (s in c(0.03, 0.06))
		for (design in c("fixed", "seq"))
			rows[[length(rows) + 1]] <- c(design, Tp, 1 + Tp / 100, s)
	for (s in c(0.03, 0.06))
		for (design in c("fixed", "seq")) rows[[length(rows) + 1]] <- c(design, Tp, 1.05, s)
}
last <- NULL
for (r in rows) {
	key <- paste(r[2], r[3])
	if (!is.null(last) && key != last) cat("\n")
	last <- key
	cat(scenario(r[1], as.numeric(r[2]), as.numeric(r[3]), as.numeric(r[4])), "\n")
}
cat("(a faster at ratio 1 or at ratio 1 + T/100 is false; target at most 5%;\n",
    " at ratio 1.050 faster is the power, target at least 80%)\n\n", sep = "")

# retry 15: the share of families of 15 attempts with a faster attempt
family <- function(design, Tp, ratio, s, A = 15) {
	g <- log1p(Tp / 100)
	run <- if (design == "fixed") run_fixed else run_seq
	any_single <- 0
	any_widened <- 0
	any_k <- 0
	for (f in seq_len(families)) {
		single <- FALSE
		widened <- FALSE
		k_of_k <- FALSE
		for (a in seq_len(A)) {
			d <- draw(seq_N, ratio, s)
			x <- run(d$c, d$b, g)
			if (x$v == "faster") {
				single <- TRUE
				n <- x$n
				lc <- d$c[1:n]
				lb <- d$b[1:n]
				if (verdict(lc, lb, 1 - (1 - x$level) / A, g) == "faster")
					widened <- TRUE
				if (verdict(lc, lb, 1 - (1 - x$level) / a, g) == "faster")
					k_of_k <- TRUE
			}
		}
		any_single <- any_single + single
		any_widened <- any_widened + widened
		any_k <- any_k + k_of_k
	}
	sprintf("%-15s %4.0f%% %6.3f %5.0f%%  %10.1f%% %10.1f%% %10.1f%%",
		if (design == "fixed") "fixed 10+10" else "until-decisive", Tp, ratio, 100 * s,
		100 * any_single / families, 100 * any_widened / families, 100 * any_k / families)
}
cat(sprintf("retry up to 15 times and promote the best: %d families of 15 attempts\n", families))
cat("design          T     ratio noise  any faster  widened/15  widened/k\n")
for (r in list(c(1, 1, 0.03), c(1, 1.01, 0.03), c(2, 1, 0.06), c(2, 1.02, 0.06)))
	for (design in c("fixed", "seq"))
		cat(family(design, r[1], r[2], r[3]), "\n")
cat("(any faster: some attempt is faster at its own level, what a user who retries until a\n",
    " pass gets; widened/15: some attempt is faster at 1 - (1 - l) / 15, l its level (0.90,\n",
    " or its last look's), the best of 15 attempts promoted; widened/k: attempt k is faster\n",
    " at 1 - (1 - l) / k, a user who promotes at the first attempt that passes, widened for\n",
    " the k attempts made so far)\n", sep = "")
cat("(target for the promoted best attempt: at most 5% of families)\n")
cat(sprintf("\n%.0f s\n", proc.time()[["elapsed"]] - t_start))
