/* The engine's compiled core: the search board and the whole tree search of search.py in C.
 *
 * Why: in Python each node of the search costs a few microseconds of interpreter work (calls,
 * dict look-ups, int objects), so the search reached about 100,000 nodes a second. The same
 * algorithm over plain machine words runs tens of times faster, which buys plies of depth.
 *
 * What it is: a faithful port of ``Searcher`` (search.py), ``SearchBoard`` (board.py) and
 * ``Evaluator.score`` (evaluate.py): the same move codes in the same order, the same Zobrist
 * hash (the keys come from Python), the same end-of-turn rule, the same evaluation terms and
 * weights (passed in from evaluate.py), the same move ordering, reductions and futility. The
 * tests compare it with the Python search node for node at fixed depth. Only the tables
 * differ: the transposition table and the evaluation cache are fixed-size arrays (bounded
 * memory) that replace entries instead of being cleared when full.
 *
 * Plain C99 and the CPython C API only: it builds with the system compiler wherever Python's
 * headers are (x86_64, aarch64), with no build dependency but setuptools. Boards up to 8x8
 * (a bitboard is one 64-bit word); ``compiled.py`` falls back to the Python search beyond.
 * The search itself runs without the GIL: other threads (the device's camera, the protocol's
 * reader) keep running, and ``stop()`` from another thread sets a flag the search polls.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint64_t bb_t;

/* A population count without the popcnt instruction (portable C: the same code on x86_64 and
 * aarch64; GCC's builtin would call a library routine without -mpopcnt). */
static inline int POPCOUNT(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

#if defined(__GNUC__) || defined(__clang__)
#define LOWEST(x) __builtin_ctzll(x)
#define HIGHEST(x) (63 - __builtin_clzll(x))
#else
static int LOWEST(bb_t x) { int n = 0; while (!(x & 1)) { x >>= 1; n++; } return n; }
static int HIGHEST(bb_t x) { int n = -1; while (x) { x >>= 1; n++; } return n; }
#endif

/* move codes (companion.rules.codes) */
#define BOARD_FLAG (1u << 20)
#define SQUARE_MASK 0xFFu
#define ORIGIN_SHIFT 8
#define SIZE_SHIFT 8
#define SIZE_MASK 0xFu
#define STACK_SHIFT 12
#define PLACEMENT_SHIFT 8
#define PIECE_BITS 5
#define PIECE_MASK 31u

#define MAX_SQ 64
#define MAX_PIECE_CODES 20
#define MAX_SIZES 11
#define MAX_OPTIONS 16
#define MAX_PLY 128
#define CHECK_EVERY 127
#define HISTORY_SIZE (1 << 15) /* placement: key << 6 | to (key < 256); board: 1 << 14 | origin << 6 | to */
#define TT_WAYS 4
#define EVAL_EMPTY INT32_MIN

enum { EXACT = 0, LOWER = 1, UPPER = 2 };

typedef struct {
    int count, value, nonempty;   /* pieces in hand, their value (reserve_summary), any left */
    int nopts;
    int opt_size[MAX_OPTIONS], opt_index[MAX_OPTIONS], opt_next[MAX_OPTIONS];
    uint64_t opt_delta[MAX_OPTIONS][2]; /* the hash change for white and for black */
    int16_t by_key[256];                /* placement key -> option index, -1: none */
} Reserve;

typedef struct {
    uint64_t key;
    int32_t score;
    uint32_t data; /* move (21 bits) | depth << 21 (8 bits) | flag << 29 (2 bits) | 1 << 31 */
} TTEntry;

typedef struct {
    uint64_t key;
    int32_t value;
    int32_t pad;
} EvalEntry;

typedef struct {
    uint64_t key;
    int32_t count;
    int32_t pad;
} SeenEntry;

typedef struct {
    PyObject_HEAD
    /* the variant */
    int size, nsq, need, gobble_kind, sizes, max_size, stack_gobble;
    bb_t board_mask;
    int nlines;
    bb_t *lines;
    int *sq_line_start, *sq_line_count; /* lines through each square: indices into sq_lines */
    bb_t *sq_lines;
    uint64_t zobrist[MAX_PIECE_CODES][MAX_SQ];
    uint64_t black_key;
    int own_line[MAX_SQ + 1];
    int ncentre, centre_extra[8];
    bb_t centre_mask[8];
    int piece_values[MAX_PIECE_CODES];
    int threat, blocked_threat, double_threat, stack_gobble_discount, pinned, buried, centre, tempo;
    int mate, mate_bound, futility;
    Reserve **reserves;
    Py_ssize_t nreserves;
    /* the board */
    uint64_t stacks[MAX_SQ];
    bb_t tops[2], size_tops[MAX_SIZES];
    int rid[2], turn, material, result; /* result: the winner's colour, -1 while the game goes on */
    uint64_t hash;
    SeenEntry *seen;
    uint64_t seen_mask;
    /* the search */
    TTEntry *tt;
    uint64_t tt_mask; /* of buckets */
    EvalEntry *evals;
    uint64_t eval_mask;
    int64_t history[2][HISTORY_SIZE];
    uint32_t killers[MAX_PLY + 2][2];
    uint32_t *moves; /* MAX_PLY + 2 buffers of max_moves codes */
    int64_t *keys;   /* a sort key per code of the same buffers */
    int max_moves;
    long long nodes, node_limit;
    double deadline; /* monotonic seconds, < 0: none */
    volatile int stop_flag;
    int stopped;
} Core;

/* ----- small helpers ----------------------------------------------------------------------- */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int history_index(uint32_t code)
{
    int to = (int)(code & SQUARE_MASK);
    if (code & BOARD_FLAG)
        return 1 << 14 | (int)((code >> ORIGIN_SHIFT) & SQUARE_MASK) << 6 | to;
    return (int)((code >> PLACEMENT_SHIFT) & 0xFF) << 6 | to;
}

static int to_tt(int score, int ply, int bound)
{
    if (score >= bound) return score + ply;
    if (score <= -bound) return score - ply;
    return score;
}

static int from_tt(int score, int ply, int bound)
{
    if (score >= bound) return score - ply;
    if (score <= -bound) return score + ply;
    return score;
}

/* ----- repetition: a hash multiset with linear probing and backward-shift deletion ---------- */

static void seen_add(Core *c, uint64_t key)
{
    uint64_t i = key & c->seen_mask;
    while (c->seen[i].count) {
        if (c->seen[i].key == key) {
            c->seen[i].count++;
            return;
        }
        i = (i + 1) & c->seen_mask;
    }
    c->seen[i].key = key;
    c->seen[i].count = 1;
}

static int seen_count(const Core *c, uint64_t key)
{
    uint64_t i = key & c->seen_mask;
    while (c->seen[i].count) {
        if (c->seen[i].key == key) return c->seen[i].count;
        i = (i + 1) & c->seen_mask;
    }
    return 0;
}

static void seen_remove(Core *c, uint64_t key)
{
    uint64_t mask = c->seen_mask, i = key & mask, j;
    while (c->seen[i].key != key || !c->seen[i].count) i = (i + 1) & mask;
    if (--c->seen[i].count) return;
    j = i; /* backward shift: pull later members of the cluster into the hole */
    for (;;) {
        j = (j + 1) & mask;
        if (!c->seen[j].count) break;
        uint64_t home = c->seen[j].key & mask;
        if (i <= j ? (i < home && home <= j) : (i < home || home <= j)) continue;
        c->seen[i] = c->seen[j];
        c->seen[j].count = 0;
        i = j;
    }
}

/* ----- the rules' look-ups (tables.py), computed on the fly --------------------------------- */

static bb_t gobble_squares(const Core *c, bb_t theirs, bb_t occupied)
{
    if (c->gobble_kind == 0) return occupied; /* always */
    if (c->gobble_kind == 1) return 0;        /* never */
    bb_t mask = 0;
    for (int i = 0; i < c->nlines; i++) {
        bb_t hit = c->lines[i] & theirs;
        if (POPCOUNT(hit) >= c->need) mask |= c->gobble_kind == 2 ? hit : c->lines[i];
    }
    return mask & occupied;
}

static bb_t gobble_mask(const Core *c, int color)
{
    return gobble_squares(c, c->tops[color ^ 1], c->tops[0] | c->tops[1]);
}

/* squares completing a line of W-1 of these tops */
static bb_t line_squares(const Core *c, bb_t tops)
{
    bb_t squares = 0;
    for (int i = 0; i < c->nlines; i++)
        if (POPCOUNT(c->lines[i] & tops) == c->need) squares |= c->lines[i] & ~tops;
    return squares;
}

static int line_through_complete(const Core *c, int sq, bb_t tops)
{
    int start = c->sq_line_start[sq], end = start + c->sq_line_count[sq];
    for (int i = start; i < end; i++)
        if ((tops & c->sq_lines[i]) == c->sq_lines[i]) return 1;
    return 0;
}

/* ----- making and unmaking (SearchBoard.make / unmake) ------------------------------------ */

/* A piece becomes the visible top of square bit ``b``, or stops being it: its colour's and
 * size's bitboards toggle and the running material follows. */
static inline void show(Core *c, bb_t b, int piece)
{
    c->tops[piece & 1] ^= b;
    c->size_tops[piece >> 1] ^= b;
    c->material += c->piece_values[piece];
}

static inline void hide(Core *c, bb_t b, int piece)
{
    c->tops[piece & 1] ^= b;
    c->size_tops[piece >> 1] ^= b;
    c->material -= c->piece_values[piece];
}

static const Reserve *reserve_of(const Core *c, int rid) { return c->reserves[rid]; }

static int make(Core *c, uint32_t code, int track_seen)
{
    int mover = c->turn, to = (int)(code & SQUARE_MASK), origin = -1, old_rid = -1, piece;
    uint64_t h = c->hash ^ c->black_key;
    if (code & BOARD_FLAG) {
        origin = (int)((code >> ORIGIN_SHIFT) & SQUARE_MASK);
        bb_t o = (bb_t)1 << origin;
        uint64_t stack = c->stacks[origin], rest = stack >> PIECE_BITS;
        piece = (int)(stack & PIECE_MASK);
        c->stacks[origin] = rest;
        hide(c, o, piece);
        h ^= c->zobrist[piece][origin];
        if (rest) show(c, o, (int)(rest & PIECE_MASK));
    } else {
        const Reserve *r = reserve_of(c, c->rid[mover]);
        int option = r->by_key[(code >> PLACEMENT_SHIFT) & 0xFF];
        old_rid = c->rid[mover];
        c->rid[mover] = r->opt_next[option];
        h ^= r->opt_delta[option][mover];
        piece = (int)((code >> SIZE_SHIFT) & SIZE_MASK) << 1 | mover;
    }
    bb_t b = (bb_t)1 << to;
    uint64_t below = c->stacks[to];
    if (below) hide(c, b, (int)(below & PIECE_MASK));
    c->stacks[to] = below << PIECE_BITS | (uint64_t)piece;
    show(c, b, piece);
    c->hash = h ^ c->zobrist[piece][to];
    c->turn = mover ^ 1;
    /* the end-of-turn check: a line of the opponent's revealed by the lift wins first */
    int result = -1;
    bb_t theirs = c->tops[mover ^ 1];
    if (origin >= 0 && (theirs >> origin & 1) && line_through_complete(c, origin, theirs)) result = mover ^ 1;
    if (result < 0 && line_through_complete(c, to, c->tops[mover])) result = mover;
    c->result = result;
    if (track_seen) seen_add(c, c->hash);
    return old_rid;
}

static void unmake(Core *c, uint32_t code, int old_rid, int track_seen)
{
    if (track_seen) seen_remove(c, c->hash);
    int mover = c->turn ^ 1, to = (int)(code & SQUARE_MASK);
    c->turn = mover;
    c->result = -1;
    uint64_t h = c->hash ^ c->black_key;
    bb_t b = (bb_t)1 << to;
    uint64_t above = c->stacks[to], below = above >> PIECE_BITS;
    int piece = (int)(above & PIECE_MASK);
    c->stacks[to] = below;
    hide(c, b, piece);
    h ^= c->zobrist[piece][to];
    if (below) show(c, b, (int)(below & PIECE_MASK));
    if (code & BOARD_FLAG) {
        int origin = (int)((code >> ORIGIN_SHIFT) & SQUARE_MASK);
        bb_t o = (bb_t)1 << origin;
        uint64_t rest = c->stacks[origin];
        if (rest) hide(c, o, (int)(rest & PIECE_MASK));
        c->stacks[origin] = rest << PIECE_BITS | (uint64_t)piece;
        show(c, o, piece);
        h ^= c->zobrist[piece][origin];
    } else {
        const Reserve *r = reserve_of(c, old_rid);
        c->rid[mover] = old_rid;
        h ^= r->opt_delta[r->by_key[(code >> PLACEMENT_SHIFT) & 0xFF]][mover];
    }
    c->hash = h;
}

/* ----- move generation (the codes and order of Position.legal_codes) ---------------------- */

static int add_codes(uint32_t *out, int n, uint32_t base, bb_t mask)
{
    while (mask) {
        out[n++] = base | (uint32_t)LOWEST(mask);
        mask &= mask - 1;
    }
    return n;
}

static int legal_codes(const Core *c, bb_t targets, uint32_t *out)
{
    if (c->result >= 0) return 0;
    int turn = c->turn, n = 0;
    bb_t own = c->tops[turn];
    bb_t empty = c->board_mask & ~(own | c->tops[turn ^ 1]);
    bb_t lt[MAX_SIZES], acc = empty; /* lt[s]: squares a piece of size s may go on */
    lt[0] = empty & targets;
    for (int s = 1; s < c->sizes; s++) {
        lt[s] = acc & targets;
        acc |= c->size_tops[s];
    }
    const Reserve *r = reserve_of(c, c->rid[turn]);
    if (r->nopts) {
        bb_t gobble = gobble_mask(c, turn);
        for (int i = 0; i < r->nopts; i++) {
            bb_t m = (empty & targets) | (lt[r->opt_size[i]] & gobble);
            if (m) n = add_codes(out, n, (uint32_t)(r->opt_size[i] << SIZE_SHIFT | r->opt_index[i] << STACK_SHIFT), m);
        }
    }
    while (own) {
        int origin = LOWEST(own);
        own &= own - 1;
        bb_t m = lt[(c->stacks[origin] & PIECE_MASK) >> 1];
        if (m) n = add_codes(out, n, BOARD_FLAG | (uint32_t)origin << ORIGIN_SHIFT, m);
    }
    return n;
}

static int is_legal(const Core *c, uint32_t code)
{
    if (c->result >= 0) return 0;
    int turn = c->turn, to = (int)(code & SQUARE_MASK);
    if (to >= c->nsq) return 0;
    int below = (int)(c->stacks[to] & PIECE_MASK);
    if (code & BOARD_FLAG) {
        int origin = (int)((code >> ORIGIN_SHIFT) & SQUARE_MASK);
        if (origin >= c->nsq) return 0;
        int top = (int)(c->stacks[origin] & PIECE_MASK);
        return top && (top & 1) == turn && (top >> 1) > (below >> 1);
    }
    if (code >> 16) return 0;
    int size = (int)((code >> SIZE_SHIFT) & SIZE_MASK), index = (int)(code >> STACK_SHIFT);
    const Reserve *r = reserve_of(c, c->rid[turn]);
    int found = 0;
    for (int i = 0; i < r->nopts && !found; i++) found = r->opt_size[i] == size && r->opt_index[i] == index;
    if (!found) return 0;
    return !below || ((below >> 1) < size && (gobble_mask(c, turn) >> to & 1));
}

/* ----- the win in one (SearchBoard.has_win) ------------------------------------------------ */

static int has_win(const Core *c)
{
    if (c->result >= 0) return 0;
    int turn = c->turn, need = c->need;
    bb_t own = c->tops[turn];
    bb_t squares = line_squares(c, own);
    if (!squares) return 0;
    const Reserve *r = reserve_of(c, c->rid[turn]);
    while (squares) {
        int x = LOWEST(squares);
        bb_t xb = (bb_t)1 << x, span = 0;
        squares &= squares - 1;
        for (int i = 0; i < c->nlines; i++) /* the lines x completes, and their other squares */
            if ((c->lines[i] & xb) && POPCOUNT(c->lines[i] & own) == need) span |= c->lines[i];
        span &= ~xb;
        uint64_t xstack = c->stacks[x];
        bb_t movers = own;
        int xsize = 0, placing;
        if (xstack) {
            xsize = (int)((xstack & PIECE_MASK) >> 1);
            for (int s = 1; s <= xsize; s++) movers &= ~c->size_tops[s];
            placing = r->nopts && (gobble_mask(c, turn) & xb);
        } else {
            placing = r->nopts;
        }
        if (placing)
            for (int i = 0; i < r->nopts; i++)
                if (r->opt_size[i] > xsize) return 1; /* a placement lifts nothing */
        while (movers) {
            int origin = LOWEST(movers);
            bb_t b = (bb_t)1 << origin;
            movers &= movers - 1;
            int under_piece = (int)((c->stacks[origin] >> PIECE_BITS) & PIECE_MASK);
            int under = under_piece ? under_piece & 1 : -1;
            if ((b & span) && under != turn) { /* the lift takes a top off a line x completes */
                bb_t after = (own ^ b) | xb;
                int kept = 0;
                for (int i = 0; i < c->nlines && !kept; i++)
                    if ((c->lines[i] & xb) && POPCOUNT(c->lines[i] & own) == need
                        && (after & c->lines[i]) == c->lines[i])
                        kept = 1;
                if (!kept) continue;
            }
            if (under == (turn ^ 1)) { /* the lift reveals an opponent's piece: a line of theirs? */
                bb_t revealed = (c->tops[turn ^ 1] | b) & ~xb;
                if (line_through_complete(c, origin, revealed)) continue;
            }
            return 1;
        }
    }
    return 0;
}

/* ----- the evaluation (Evaluator.score) ---------------------------------------------------- */

static int evaluate(const Core *c)
{
    bb_t white = c->tops[0], black = c->tops[1];
    int need = c->need, score = 0, white_lines = 0, black_lines = 0, nblocked = 0;
    bb_t white_threats = 0, black_threats = 0;
    bb_t blocked_last[64];
    int blocked_color[64];
    for (int i = 0; i < c->nlines; i++) {
        bb_t mask = c->lines[i], w = white & mask, b = black & mask;
        if (!b) {
            int kw = POPCOUNT(w);
            score += c->own_line[kw];
            if (kw == need) {
                white_lines++;
                score += c->threat;
                white_threats |= mask ^ w;
            }
        } else if (!w) {
            int kb = POPCOUNT(b);
            score -= c->own_line[kb];
            if (kb == need) {
                black_lines++;
                score -= c->threat;
                black_threats |= mask ^ b;
            }
        } else if (POPCOUNT(w) == need) {
            white_lines++;
            score += c->blocked_threat;
            if (nblocked < 64) { blocked_last[nblocked] = mask ^ w; blocked_color[nblocked++] = 0; }
        } else if (POPCOUNT(b) == need) {
            black_lines++;
            score -= c->blocked_threat;
            if (nblocked < 64) { blocked_last[nblocked] = mask ^ b; blocked_color[nblocked++] = 1; }
        }
    }
    score += c->buried * (POPCOUNT(white) - POPCOUNT(black));
    for (int i = 0; i < c->ncentre; i++)
        score += c->centre * c->centre_extra[i]
                 * (POPCOUNT(white & c->centre_mask[i]) - POPCOUNT(black & c->centre_mask[i]));
    bb_t largest = c->size_tops[c->max_size];
    for (int i = 0; i < nblocked; i++) { /* a line of W-1 whose last square shows the other colour */
        bb_t last = blocked_last[i];
        int color = blocked_color[i];
        int under = (int)((c->stacks[HIGHEST(last)] >> PIECE_BITS) & PIECE_MASK);
        if (under && (under & 1) == color) score += color == 0 ? c->pinned : -c->pinned;
        if (!(largest & last)) { /* a threat only if that top can still be gobbled */
            if (color == 0) white_threats |= last;
            else black_threats |= last;
        }
    }
    if (white_threats & (white_threats - 1)) score += c->double_threat;
    if (black_threats & (black_threats - 1)) score -= c->double_threat;
    const Reserve *rw = reserve_of(c, c->rid[0]), *rb = reserve_of(c, c->rid[1]);
    if (c->stack_gobble) {
        if (white_lines && rb->nonempty) score -= c->stack_gobble_discount * white_lines;
        if (black_lines && rw->nonempty) score += c->stack_gobble_discount * black_lines;
    }
    int hand = rw->value - rb->value - c->buried * (rb->count - rw->count);
    if (c->turn) return c->tempo - score - c->material - hand;
    return score + c->material + hand + c->tempo;
}

/* ----- tables ------------------------------------------------------------------------------ */

static int eval_get(const Core *c, uint64_t key, int *value)
{
    const EvalEntry *e = &c->evals[key & c->eval_mask];
    if (e->value != EVAL_EMPTY && e->key == key) {
        *value = e->value;
        return 1;
    }
    return 0;
}

static void eval_put(Core *c, uint64_t key, int value)
{
    EvalEntry *e = &c->evals[key & c->eval_mask];
    e->key = key;
    e->value = value;
}

static const TTEntry *tt_get(const Core *c, uint64_t key)
{
    const TTEntry *bucket = &c->tt[(key & c->tt_mask) * TT_WAYS];
    for (int i = 0; i < TT_WAYS; i++)
        if ((bucket[i].data >> 31) && bucket[i].key == key) return &bucket[i];
    return NULL;
}

static void tt_put(Core *c, uint64_t key, int depth, int flag, int score, uint32_t move)
{
    TTEntry *bucket = &c->tt[(key & c->tt_mask) * TT_WAYS], *slot = NULL;
    for (int i = 0; i < TT_WAYS && !slot; i++)
        if ((bucket[i].data >> 31) && bucket[i].key == key) slot = &bucket[i];
    for (int i = 0; i < TT_WAYS && !slot; i++)
        if (!(bucket[i].data >> 31)) slot = &bucket[i];
    if (!slot) { /* replace the shallowest */
        slot = &bucket[0];
        for (int i = 1; i < TT_WAYS; i++)
            if (((bucket[i].data >> 21) & 0xFF) < ((slot->data >> 21) & 0xFF)) slot = &bucket[i];
    }
    if (depth > 255) depth = 255;
    slot->key = key;
    slot->score = score;
    slot->data = (move & 0x1FFFFFu) | (uint32_t)depth << 21 | (uint32_t)flag << 29 | 1u << 31;
}

#define TT_MOVE(e) ((e)->data & 0x1FFFFFu)
#define TT_DEPTH(e) ((int)(((e)->data >> 21) & 0xFF))
#define TT_FLAG(e) ((int)(((e)->data >> 29) & 3))

/* ----- the search (Searcher) --------------------------------------------------------------- */

static int check_limits(Core *c)
{
    if (c->stop_flag || (c->node_limit >= 0 && c->nodes >= c->node_limit)
        || (c->deadline >= 0 && now_seconds() >= c->deadline))
        c->stopped = 1;
    return c->stopped;
}

static void sort_by_history(Core *c, uint32_t *codes, int64_t *keys, int n)
{
    /* stable, descending: Python's list.sort(key=history, reverse=True) */
    const int64_t *history = c->history[c->turn];
    for (int i = 0; i < n; i++) keys[i] = history[history_index(codes[i])];
    for (int i = 1; i < n; i++) {
        uint32_t code = codes[i];
        int64_t key = keys[i];
        int j = i - 1;
        while (j >= 0 && keys[j] < key) {
            codes[j + 1] = codes[j];
            keys[j + 1] = keys[j];
            j--;
        }
        codes[j + 1] = code;
        keys[j + 1] = key;
    }
}

static int contains(const uint32_t *codes, int n, uint32_t code)
{
    for (int i = 0; i < n; i++)
        if (codes[i] == code) return 1;
    return 0;
}

/* Every move but the hash move in Searcher._after_hash_move's order: blocks by history, the
 * killers, then the rest by history. Returns how many; ``out`` must hold max_moves codes. */
static int ordered_after(Core *c, uint32_t tt_move, int ply, uint32_t *out, int64_t *keys)
{
    bb_t blocks = line_squares(c, c->tops[c->turn ^ 1]);
    int nfront = 0;
    if (blocks) {
        int n = legal_codes(c, blocks, out);
        for (int i = 0; i < n; i++)
            if (out[i] != tt_move) out[nfront++] = out[i];
        sort_by_history(c, out, keys, nfront);
    }
    for (int k = 0; k < 2; k++) {
        uint32_t killer = c->killers[ply][k];
        if (killer != tt_move && !((killer & SQUARE_MASK) < 64 && (blocks >> (killer & SQUARE_MASK) & 1))
            && is_legal(c, killer))
            out[nfront++] = killer;
    }
    uint32_t *rest = out + nfront;
    int n = legal_codes(c, ~(bb_t)0, rest);
    sort_by_history(c, rest, keys, n);
    int total = nfront;
    for (int i = 0; i < n; i++) {
        uint32_t code = rest[i];
        if (code != tt_move && !contains(out, nfront, code)) out[total++] = code;
    }
    return total;
}

static void reward(Core *c, uint32_t code, int depth, int ply)
{
    c->history[c->turn][history_index(code)] += (int64_t)depth * depth;
    if (c->killers[ply][0] != code) {
        c->killers[ply][1] = c->killers[ply][0];
        c->killers[ply][0] = code;
    }
}

/* A move's score against the node's best so far and its window; 1 when it cuts off (the
 * move is then rewarded in the history and the killers). */
static int improve(Core *c, int score, uint32_t code, int *best_score, uint32_t *best_code, int *alpha,
                   int beta, int depth, int ply)
{
    if (score <= *best_score) return 0;
    *best_score = score;
    *best_code = code;
    if (score <= *alpha) return 0;
    *alpha = score;
    if (*alpha < beta) return 0;
    reward(c, code, depth, ply);
    return 1;
}

static int negamax(Core *c, int depth, int alpha, int beta, int ply);

static int child(Core *c, uint32_t code, int depth, int alpha, int beta, int ply, int index)
{
    int mover = c->turn, score;
    int undo = make(c, code, 1);
    int decided = c->result;
    if (decided >= 0) {
        score = decided == mover ? c->mate - ply - 1 : -(c->mate - ply - 1);
    } else if (index == 0) {
        score = -negamax(c, depth - 1, -beta, -alpha, ply + 1);
    } else {
        int reduce = depth >= 3 && index >= 4 && code != c->killers[ply][0] && code != c->killers[ply][1];
        score = -negamax(c, depth - 1 - reduce, -alpha - 1, -alpha, ply + 1);
        if (!c->stopped && score > alpha && (reduce || score < beta))
            score = -negamax(c, depth - 1, -beta, -alpha, ply + 1);
    }
    unmake(c, code, undo, 1);
    return score;
}

/* The node one ply above the horizon (Searcher._frontier): every reply scored at once. */
static int frontier(Core *c, int alpha, int beta, int ply, uint64_t key, uint32_t tt_move, int standing,
                    int have_standing)
{
    int mate = c->mate;
    if (!tt_move && beta < c->mate_bound) {
        if (!have_standing) {
            standing = evaluate(c);
            eval_put(c, key, standing);
        }
        if (standing - c->futility >= beta && !line_squares(c, c->tops[c->turn ^ 1])) return standing;
    }
    int mover = c->turn, original_alpha = alpha, best_score = -mate - 1;
    uint32_t best_code = 0;
    int won = mate - ply - 1, lost = -(mate - ply - 2);
    uint32_t *codes = c->moves + (size_t)(ply + 1) * c->max_moves;
    int64_t *keys = c->keys + (size_t)(ply + 1) * c->max_moves;
    /* the moves in stages (Searcher._after_hash_move, lazily): most of these nodes are cut off
     * by their first move, so the full list is only generated and sorted when needed */
    int n = 0, stage = 0;
    bb_t blocks = 0;
    for (int i = 0;; i++) {
        while (i == n && stage < 4) {
            stage++;
            if (stage == 1) {
                if (tt_move) codes[n++] = tt_move;
            } else if (stage == 2) {
                blocks = line_squares(c, c->tops[c->turn ^ 1]);
                if (blocks) {
                    int m = legal_codes(c, blocks, codes + n), k = 0;
                    for (int j = 0; j < m; j++)
                        if (codes[n + j] != tt_move) codes[n + k++] = codes[n + j];
                    sort_by_history(c, codes + n, keys, k);
                    n += k;
                }
            } else if (stage == 3) {
                for (int k = 0; k < 2; k++) {
                    uint32_t killer = c->killers[ply][k];
                    if (killer != tt_move && !((killer & SQUARE_MASK) < 64 && (blocks >> (killer & SQUARE_MASK) & 1)) && is_legal(c, killer))
                        codes[n++] = killer;
                }
            } else {
                int m = legal_codes(c, ~(bb_t)0, codes + n), k = n;
                sort_by_history(c, codes + n, keys, m);
                for (int j = 0; j < m; j++)
                    if (!contains(codes, n, codes[n + j])) codes[k++] = codes[n + j];
                n = k;
            }
        }
        if (i == n) break;
        uint32_t code = codes[i];
        int score, undo = make(c, code, 0);
        if (c->result >= 0) {
            score = c->result == mover ? won : -won;
        } else {
            c->nodes++;
            if (seen_count(c, c->hash)) {
                score = 0; /* a repetition */
            } else {
                int cached;
                if (!eval_get(c, c->hash, &cached)) {
                    cached = has_win(c) ? mate + 1 : evaluate(c);
                    eval_put(c, c->hash, cached);
                }
                score = cached == mate + 1 ? lost : -cached;
            }
            if (!(c->nodes & CHECK_EVERY) && check_limits(c)) {
                unmake(c, code, undo, 0);
                return 0;
            }
        }
        unmake(c, code, undo, 0);
        if (improve(c, score, code, &best_score, &best_code, &alpha, beta, 1, ply)) break;
    }
    if (best_score == -mate - 1) return -(mate - ply); /* no legal move: the side to move loses */
    int flag = best_score <= original_alpha ? UPPER : best_score >= beta ? LOWER : EXACT;
    tt_put(c, key, 1, flag, to_tt(best_score, ply, c->mate_bound), best_code);
    return best_score;
}

static int negamax(Core *c, int depth, int alpha, int beta, int ply)
{
    c->nodes++;
    if (!(c->nodes & CHECK_EVERY) && check_limits(c)) return 0;
    uint64_t key = c->hash;
    int mate = c->mate, bound = c->mate_bound;
    if (seen_count(c, key) > 1) return 0;
    int stat = 0, have = eval_get(c, key, &stat);
    if (!have) {
        if (has_win(c)) {
            eval_put(c, key, mate + 1);
            return mate - ply - 1;
        }
    } else if (stat == mate + 1) {
        return mate - ply - 1;
    }
    if (depth <= 0 || ply >= MAX_PLY) {
        if (!have) {
            stat = evaluate(c);
            eval_put(c, key, stat);
        }
        return stat;
    }
    const TTEntry *entry = tt_get(c, key);
    uint32_t tt_move = 0;
    if (entry) {
        tt_move = TT_MOVE(entry);
        if (TT_DEPTH(entry) >= depth) {
            int flag = TT_FLAG(entry), score = from_tt(entry->score, ply, bound);
            if (flag == EXACT || (flag == LOWER && score >= beta) || (flag == UPPER && score <= alpha))
                return score;
        }
        if (tt_move && !is_legal(c, tt_move)) tt_move = 0; /* only a hash collision gets here */
    }
    if (depth == 1) return frontier(c, alpha, beta, ply, key, tt_move, stat, have);
    int original_alpha = alpha, best_score = -mate - 1, index = 0;
    uint32_t best_code = 0;
    uint32_t *codes = c->moves + (size_t)(ply + 1) * c->max_moves;
    int64_t *keys = c->keys + (size_t)(ply + 1) * c->max_moves;
    int n = 0, generated = 0, cut = 0;
    if (tt_move) codes[n++] = tt_move;
    for (int i = 0; !cut; i++) {
        if (i == n) {
            if (generated) break;
            generated = 1; /* ordered after the hash move's subtree, as the Python search does */
            n = ordered_after(c, tt_move, ply, codes, keys);
            i = 0;
            if (!n) break;
        }
        uint32_t code = codes[i];
        int score = child(c, code, depth, alpha, beta, ply, index);
        if (c->stopped) return 0;
        index++;
        cut = improve(c, score, code, &best_score, &best_code, &alpha, beta, depth, ply);
    }
    if (index == 0) return -(mate - ply);
    int flag = best_score <= original_alpha ? UPPER : best_score >= beta ? LOWER : EXACT;
    tt_put(c, key, depth, flag, to_tt(best_score, ply, bound), best_code);
    return best_score;
}

/* ----- the Python type --------------------------------------------------------------------- */

static int ready(Core *c)
{
    if (!c->tt || !c->seen) {
        PyErr_SetString(PyExc_RuntimeError, "the core has no position: call set_position first");
        return 0;
    }
    return 1;
}

static void Core_dealloc(Core *c)
{
    free(c->lines);
    free(c->sq_line_start);
    free(c->sq_line_count);
    free(c->sq_lines);
    if (c->reserves) {
        for (Py_ssize_t i = 0; i < c->nreserves; i++) free(c->reserves[i]);
        free(c->reserves);
    }
    free(c->seen);
    free(c->tt);
    free(c->evals);
    free(c->moves);
    free(c->keys);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static int read_ints(PyObject *seq, int *out, int limit, const char *what)
{
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > limit) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: more than %d values", what, limit);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
    }
    Py_DECREF(fast);
    return PyErr_Occurred() ? -1 : (int)n;
}

/* Core((size, win_length, gobble_kind, max_size), lines, zobrist, black_key,
 *      (own_line, centre, piece_values, stack_gobble), weights, search, tt_bits, eval_bits) */
static int Core_init(Core *c, PyObject *args, PyObject *kwds)
{
    int size, win, gobble_kind, stack_gobble, max_size, tt_bits, eval_bits;
    PyObject *lines, *zobrist, *own_line, *centre, *piece_values, *weights, *search;
    unsigned long long black_key;
    if (kwds && PyDict_Size(kwds)) {
        PyErr_SetString(PyExc_TypeError, "Core takes positional arguments only");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "(iiii)OOK(OOOp)OOii", &size, &win, &gobble_kind, &max_size, &lines, &zobrist,
                          &black_key, &own_line, &centre, &piece_values, &stack_gobble, &weights, &search,
                          &tt_bits, &eval_bits))
        return -1;
    if (size < 2 || size * size > MAX_SQ || max_size < 1 || max_size + 2 > MAX_SIZES || tt_bits < 4
        || tt_bits > 28 || eval_bits < 4 || eval_bits > 28) {
        PyErr_SetString(PyExc_ValueError, "the compiled core plays boards up to 8x8 and sizes up to 9");
        return -1;
    }
    c->size = size;
    c->nsq = size * size;
    c->need = win - 1;
    c->gobble_kind = gobble_kind;
    c->stack_gobble = stack_gobble;
    c->max_size = max_size;
    c->sizes = max_size + 2;
    c->board_mask = c->nsq == 64 ? ~(bb_t)0 : ((bb_t)1 << c->nsq) - 1;
    c->black_key = black_key;
    PyObject *fast = PySequence_Fast(lines, "lines");
    if (!fast) return -1;
    c->nlines = (int)PySequence_Fast_GET_SIZE(fast);
    c->lines = calloc((size_t)c->nlines + 1, sizeof(bb_t));
    for (int i = 0; i < c->nlines; i++) c->lines[i] = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(fast, i));
    Py_DECREF(fast);
    if (PyErr_Occurred()) return -1;
    c->sq_line_start = calloc(MAX_SQ, sizeof(int));
    c->sq_line_count = calloc(MAX_SQ, sizeof(int));
    c->sq_lines = calloc((size_t)c->nlines * (size_t)c->nsq + 1, sizeof(bb_t));
    int at = 0;
    for (int sq = 0; sq < c->nsq; sq++) {
        c->sq_line_start[sq] = at;
        for (int i = 0; i < c->nlines; i++)
            if (c->lines[i] >> sq & 1) c->sq_lines[at++] = c->lines[i];
        c->sq_line_count[sq] = at - c->sq_line_start[sq];
    }
    PyObject *zfast = PySequence_Fast(zobrist, "zobrist");
    if (!zfast) return -1;
    for (Py_ssize_t p = 0; p < PySequence_Fast_GET_SIZE(zfast) && p < MAX_PIECE_CODES; p++) {
        PyObject *row = PySequence_Fast(PySequence_Fast_GET_ITEM(zfast, p), "zobrist row");
        if (!row) {
            Py_DECREF(zfast);
            return -1;
        }
        for (Py_ssize_t sq = 0; sq < PySequence_Fast_GET_SIZE(row) && sq < MAX_SQ; sq++)
            c->zobrist[p][sq] = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(row, sq));
        Py_DECREF(row);
    }
    Py_DECREF(zfast);
    if (PyErr_Occurred()) return -1;
    if (read_ints(own_line, c->own_line, MAX_SQ + 1, "own_line") < 0) return -1;
    PyObject *cfast = PySequence_Fast(centre, "centre");
    if (!cfast) return -1;
    c->ncentre = (int)PySequence_Fast_GET_SIZE(cfast);
    if (c->ncentre > 8) c->ncentre = 8;
    for (int i = 0; i < c->ncentre; i++) { /* (extra lines, mask) pairs */
        PyObject *pair = PySequence_Fast_GET_ITEM(cfast, i);
        unsigned long long mask;
        if (!PyArg_ParseTuple(pair, "iK", &c->centre_extra[i], &mask)) {
            Py_DECREF(cfast);
            return -1;
        }
        c->centre_mask[i] = mask;
    }
    Py_DECREF(cfast);
    if (read_ints(piece_values, c->piece_values, MAX_PIECE_CODES, "piece_values") < 0) return -1;
    int w[8], s[3];
    if (read_ints(weights, w, 8, "weights") != 8 || read_ints(search, s, 3, "search") != 3) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "8 weights and 3 search constants expected");
        return -1;
    }
    c->threat = w[0];
    c->blocked_threat = w[1];
    c->double_threat = w[2];
    c->stack_gobble_discount = w[3];
    c->pinned = w[4];
    c->buried = w[5];
    c->centre = w[6];
    c->tempo = w[7];
    c->mate = s[0];
    c->mate_bound = s[1];
    c->futility = s[2];
    c->tt_mask = ((uint64_t)1 << tt_bits) / TT_WAYS - 1;
    c->eval_mask = ((uint64_t)1 << eval_bits) - 1;
    c->tt = calloc((size_t)1 << tt_bits, sizeof(TTEntry));
    c->evals = malloc(((size_t)1 << eval_bits) * sizeof(EvalEntry));
    c->max_moves = 2 * (MAX_OPTIONS * c->nsq + c->nsq * c->nsq) + 4; /* room for blocks, killers, then all */
    c->moves = calloc((size_t)(MAX_PLY + 3) * c->max_moves, sizeof(uint32_t));
    c->keys = calloc((size_t)(MAX_PLY + 3) * c->max_moves, sizeof(int64_t));
    if (!c->tt || !c->evals || !c->moves || !c->keys || !c->lines || !c->sq_lines) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i <= c->eval_mask; i++) c->evals[i].value = EVAL_EMPTY;
    c->result = -1;
    c->deadline = -1;
    c->node_limit = -1;
    return 0;
}

/* add_reserve(rid, count, value, options): options = ((size, index, next_rid, white_delta,
 * black_delta), ...). Every reserve a search can reach must be added before it runs. */
static PyObject *Core_add_reserve(Core *c, PyObject *args)
{
    Py_ssize_t rid;
    int count, value;
    PyObject *options;
    if (!PyArg_ParseTuple(args, "niiO", &rid, &count, &value, &options)) return NULL;
    if (rid < 0) return PyErr_Format(PyExc_ValueError, "bad reserve id %zd", rid);
    if (rid >= c->nreserves) {
        Py_ssize_t n = rid + 64;
        Reserve **grown = realloc(c->reserves, (size_t)n * sizeof(Reserve *));
        if (!grown) return PyErr_NoMemory();
        for (Py_ssize_t i = c->nreserves; i < n; i++) grown[i] = NULL;
        c->reserves = grown;
        c->nreserves = n;
    }
    Reserve *r = c->reserves[rid] ? c->reserves[rid] : calloc(1, sizeof(Reserve));
    if (!r) return PyErr_NoMemory();
    c->reserves[rid] = r;
    PyObject *fast = PySequence_Fast(options, "options");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > MAX_OPTIONS) {
        Py_DECREF(fast);
        return PyErr_Format(PyExc_ValueError, "more than %d placements", MAX_OPTIONS);
    }
    r->count = count;
    r->value = value;
    r->nonempty = count > 0;
    r->nopts = (int)n;
    for (int k = 0; k < 256; k++) r->by_key[k] = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int size, index, next;
        unsigned long long dw, db;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "iiiKK", &size, &index, &next, &dw, &db)) {
            Py_DECREF(fast);
            return NULL;
        }
        if (index > 15 || size > 15) {
            Py_DECREF(fast);
            return PyErr_Format(PyExc_ValueError, "placement %d/%d out of range", size, index);
        }
        r->opt_size[i] = size;
        r->opt_index[i] = index;
        r->opt_next[i] = next;
        r->opt_delta[i][0] = dw;
        r->opt_delta[i][1] = db;
        r->by_key[size | index << 4] = (int16_t)i;
    }
    Py_DECREF(fast);
    Py_RETURN_NONE;
}

static int reserve_known(const Core *c, int rid)
{
    return rid >= 0 && rid < c->nreserves && c->reserves[rid] != NULL;
}

/* set_position(stacks, white_rid, black_rid, turn, hash, seen, result) */
static PyObject *Core_set_position(Core *c, PyObject *args)
{
    PyObject *stacks, *seen;
    int rw, rb, turn, result;
    unsigned long long hash;
    if (!PyArg_ParseTuple(args, "OiiiKOi", &stacks, &rw, &rb, &turn, &hash, &seen, &result)) return NULL;
    if (!reserve_known(c, rw) || !reserve_known(c, rb))
        return PyErr_Format(PyExc_ValueError, "reserve %d or %d was not added", rw, rb);
    PyObject *fast = PySequence_Fast(stacks, "stacks");
    if (!fast) return NULL;
    if (PySequence_Fast_GET_SIZE(fast) != c->nsq) {
        Py_DECREF(fast);
        return PyErr_Format(PyExc_ValueError, "%d stacks expected", c->nsq);
    }
    memset(c->tops, 0, sizeof c->tops);
    memset(c->size_tops, 0, sizeof c->size_tops);
    c->material = 0;
    for (int i = 0; i < c->nsq; i++) {
        uint64_t stack = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(fast, i));
        c->stacks[i] = stack;
        if (stack) {
            int top = (int)(stack & PIECE_MASK);
            c->tops[top & 1] |= (bb_t)1 << i;
            c->size_tops[top >> 1] |= (bb_t)1 << i;
            c->material += c->piece_values[top];
        }
    }
    Py_DECREF(fast);
    if (PyErr_Occurred()) return NULL;
    c->rid[0] = rw;
    c->rid[1] = rb;
    c->turn = turn;
    c->hash = hash;
    c->result = result;
    Py_ssize_t entries = PyDict_Size(seen);
    if (entries < 0) return NULL;
    size_t capacity = 1024;
    while (capacity < 4 * ((size_t)entries + MAX_PLY + 16)) capacity <<= 1;
    free(c->seen);
    c->seen = calloc(capacity, sizeof(SeenEntry));
    if (!c->seen) return PyErr_NoMemory();
    c->seen_mask = capacity - 1;
    PyObject *key, *count;
    Py_ssize_t pos = 0;
    while (PyDict_Next(seen, &pos, &key, &count)) {
        uint64_t k = PyLong_AsUnsignedLongLong(key);
        long n = PyLong_AsLong(count);
        if (PyErr_Occurred()) return NULL;
        for (long i = 0; i < n; i++) seen_add(c, k);
    }
    Py_RETURN_NONE;
}

static PyObject *Core_new_search(Core *c, PyObject *args)
{
    double seconds;
    long long node_limit;
    if (!PyArg_ParseTuple(args, "dL", &seconds, &node_limit)) return NULL;
    memset(c->history, 0, sizeof c->history);
    c->nodes = 0;
    c->node_limit = node_limit;
    c->deadline = seconds >= 0 ? now_seconds() + seconds : -1;
    c->stopped = 0;
    Py_RETURN_NONE;
}

static PyObject *Core_interrupt(Core *c, PyObject *unused)
{
    c->stop_flag = 1;
    Py_RETURN_NONE;
}

static PyObject *Core_clear_interrupt(Core *c, PyObject *unused)
{
    c->stop_flag = 0;
    Py_RETURN_NONE;
}

static PyObject *Core_forget(Core *c, PyObject *unused)
{
    memset(c->tt, 0, ((size_t)(c->tt_mask + 1) * TT_WAYS) * sizeof(TTEntry));
    for (size_t i = 0; i <= c->eval_mask; i++) c->evals[i].value = EVAL_EMPTY;
    memset(c->killers, 0, sizeof c->killers);
    Py_RETURN_NONE;
}

/* The codes of a Python sequence in a new buffer, with a second buffer of the same size
 * for the caller (both max_moves + 1 words, freed by the caller); NULL with an exception set
 * when it fails. */
static uint32_t *read_codes(const Core *c, PyObject *seq, int *n, uint32_t **second)
{
    size_t bytes = ((size_t)c->max_moves + 1) * sizeof(uint32_t);
    uint32_t *codes = malloc(bytes), *other = malloc(bytes);
    PyObject *fast = codes && other ? PySequence_Fast(seq, "codes") : NULL;
    if (fast) {
        Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
        *n = count > c->max_moves ? c->max_moves : (int)count;
        for (int i = 0; i < *n; i++)
            codes[i] = (uint32_t)PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(fast, i));
        Py_DECREF(fast);
        if (!PyErr_Occurred()) {
            *second = other;
            return codes;
        }
    } else if (!PyErr_Occurred()) {
        PyErr_NoMemory();
    }
    free(codes);
    free(other);
    return NULL;
}

/* root(depth, codes, previous_best) -> (best_code, score, finished): one iteration at the root
 * (Searcher._root). Unfinished (stopped): the best move and score so far, or (0, 0, False)
 * when not even the first move was searched. */
static PyObject *Core_root(Core *c, PyObject *args)
{
    int depth;
    PyObject *codes_obj;
    unsigned long previous;
    if (!PyArg_ParseTuple(args, "iOk", &depth, &codes_obj, &previous) || !ready(c)) return NULL;
    int nallowed;
    uint32_t *ordered, *allowed = read_codes(c, codes_obj, &nallowed, &ordered);
    if (!allowed) return NULL;
    uint32_t best_code = 0;
    int best_score = 0, have_best = 0, finished;
    Py_BEGIN_ALLOW_THREADS
    const TTEntry *entry = tt_get(c, c->hash);
    uint32_t first = entry && TT_MOVE(entry) ? TT_MOVE(entry) : (uint32_t)previous;
    int n = 1;
    ordered[0] = first;
    n += ordered_after(c, first, 0, ordered + 1, c->keys);
    int skip = contains(allowed, nallowed, first) ? 0 : 1;
    int alpha = -c->mate - 1, beta = c->mate + 1;
    for (int i = skip; i < n; i++) {
        int score = child(c, ordered[i], depth, alpha, beta, 0, i - skip);
        if (c->stopped) break;
        if (score > alpha || !have_best) {
            if (score > alpha) alpha = score;
            best_code = ordered[i];
            best_score = score;
            have_best = 1;
        }
    }
    finished = !c->stopped && have_best;
    if (finished) tt_put(c, c->hash, depth, EXACT, alpha, best_code);
    Py_END_ALLOW_THREADS
    free(allowed);
    free(ordered);
    return Py_BuildValue("kiO", (unsigned long)best_code, best_score, finished ? Py_True : Py_False);
}

/* score_moves(codes, depth) -> [score, ...]: each move with a full window (the loose levels) */
static PyObject *Core_score_moves(Core *c, PyObject *args)
{
    PyObject *codes_obj;
    int depth;
    if (!PyArg_ParseTuple(args, "Oi", &codes_obj, &depth) || !ready(c)) return NULL;
    int n;
    uint32_t *scores, *codes = read_codes(c, codes_obj, &n, &scores); /* scores: int32 as words */
    if (!codes) return NULL;
    Py_BEGIN_ALLOW_THREADS
    for (int i = 0; i < n; i++) scores[i] = (uint32_t)child(c, codes[i], depth, -c->mate - 1, c->mate + 1, 0, 0);
    Py_END_ALLOW_THREADS
    PyObject *out = PyList_New(n);
    for (int i = 0; out && i < n; i++) PyList_SET_ITEM(out, i, PyLong_FromLong((int32_t)scores[i]));
    free(codes);
    free(scores);
    return out;
}

static PyObject *Core_tt_move(Core *c, PyObject *arg)
{
    uint64_t key = PyLong_AsUnsignedLongLong(arg);
    if (PyErr_Occurred() || !ready(c)) return NULL;
    const TTEntry *entry = tt_get(c, key);
    return PyLong_FromUnsignedLong(entry ? TT_MOVE(entry) : 0);
}

/* ----- the board, for the tests (the search's own board checked against the rules) -------- */

static PyObject *Core_legal_codes(Core *c, PyObject *args)
{
    unsigned long long targets = ~0ULL;
    if (!PyArg_ParseTuple(args, "|K", &targets) || !ready(c)) return NULL;
    uint32_t *codes = malloc((size_t)c->max_moves * sizeof(uint32_t));
    if (!codes) return PyErr_NoMemory();
    int n = legal_codes(c, targets, codes);
    PyObject *out = PyList_New(n);
    for (int i = 0; out && i < n; i++) PyList_SET_ITEM(out, i, PyLong_FromUnsignedLong(codes[i]));
    free(codes);
    return out;
}

static PyObject *Core_make(Core *c, PyObject *arg)
{
    unsigned long code = PyLong_AsUnsignedLong(arg);
    if (PyErr_Occurred() || !ready(c)) return NULL;
    if (!is_legal(c, (uint32_t)code)) return PyErr_Format(PyExc_ValueError, "code %lu is not legal here", code);
    return PyLong_FromLong(make(c, (uint32_t)code, 1));
}

static PyObject *Core_unmake(Core *c, PyObject *args)
{
    unsigned long code;
    int undo;
    if (!PyArg_ParseTuple(args, "ki", &code, &undo) || !ready(c)) return NULL;
    unmake(c, (uint32_t)code, undo, 1);
    Py_RETURN_NONE;
}

static PyObject *Core_is_legal(Core *c, PyObject *arg)
{
    unsigned long code = PyLong_AsUnsignedLong(arg);
    if (PyErr_Occurred() || !ready(c)) return NULL;
    return PyBool_FromLong(is_legal(c, (uint32_t)code));
}

static PyObject *Core_has_win(Core *c, PyObject *unused)
{
    if (!ready(c)) return NULL;
    return PyBool_FromLong(has_win(c));
}

static PyObject *Core_evaluate(Core *c, PyObject *unused)
{
    if (!ready(c)) return NULL;
    return PyLong_FromLong(evaluate(c));
}

static PyObject *Core_state(Core *c, PyObject *unused)
{
    if (!ready(c)) return NULL;
    PyObject *stacks = PyList_New(c->nsq);
    for (int i = 0; stacks && i < c->nsq; i++) PyList_SET_ITEM(stacks, i, PyLong_FromUnsignedLongLong(c->stacks[i]));
    return Py_BuildValue("{s:N,s:K,s:i,s:i,s:(ii),s:(KK),s:i}", "stacks", stacks, "hash",
                         (unsigned long long)c->hash, "turn", c->turn, "result", c->result, "rid", c->rid[0],
                         c->rid[1], "tops", (unsigned long long)c->tops[0], (unsigned long long)c->tops[1],
                         "material", c->material);
}

static PyObject *Core_repetitions(Core *c, PyObject *arg)
{
    uint64_t key = PyLong_AsUnsignedLongLong(arg);
    if (PyErr_Occurred() || !ready(c)) return NULL;
    return PyLong_FromLong(seen_count(c, key));
}

static PyObject *Core_get_nodes(Core *c, void *closure) { return PyLong_FromLongLong(c->nodes); }

static PyObject *Core_get_memory(Core *c, void *closure)
{
    size_t bytes = ((size_t)(c->tt_mask + 1) * TT_WAYS) * sizeof(TTEntry) + (size_t)(c->eval_mask + 1) * sizeof(EvalEntry)
                   + (size_t)(MAX_PLY + 3) * c->max_moves * (sizeof(uint32_t) + sizeof(int64_t)) + sizeof(Core);
    return PyLong_FromSize_t(bytes);
}

static PyMethodDef Core_methods[] = {
    {"add_reserve", (PyCFunction)Core_add_reserve, METH_VARARGS, "Add a reserve's placements and what they leave."},
    {"set_position", (PyCFunction)Core_set_position, METH_VARARGS, "Set the board (stacks, reserves, turn, hash, seen)."},
    {"new_search", (PyCFunction)Core_new_search, METH_VARARGS, "Start a search: (seconds or -1, nodes or -1)."},
    {"interrupt", (PyCFunction)Core_interrupt, METH_NOARGS, "Ask a running search to stop (any thread)."},
    {"clear_interrupt", (PyCFunction)Core_clear_interrupt, METH_NOARGS, "Forget an earlier interrupt."},
    {"forget", (PyCFunction)Core_forget, METH_NOARGS, "Empty the tables and the killers."},
    {"root", (PyCFunction)Core_root, METH_VARARGS, "One iteration at the root: (code, score, finished)."},
    {"score_moves", (PyCFunction)Core_score_moves, METH_VARARGS, "Each move's full-window score."},
    {"tt_move", (PyCFunction)Core_tt_move, METH_O, "The hash move stored for a hash, 0: none."},
    {"legal_codes", (PyCFunction)Core_legal_codes, METH_VARARGS, "The legal codes (onto targets)."},
    {"make", (PyCFunction)Core_make, METH_O, "Play a legal code; returns what unmake needs."},
    {"unmake", (PyCFunction)Core_unmake, METH_VARARGS, "Take back the last make(code) -> undo."},
    {"is_legal", (PyCFunction)Core_is_legal, METH_O, "Is the code legal here?"},
    {"has_win", (PyCFunction)Core_has_win, METH_NOARGS, "Does the side to move win in one?"},
    {"evaluate", (PyCFunction)Core_evaluate, METH_NOARGS, "The static evaluation."},
    {"state", (PyCFunction)Core_state, METH_NOARGS, "The board's state as a dict."},
    {"repetitions", (PyCFunction)Core_repetitions, METH_O, "How often a hash occurred."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Core_getset[] = {
    {"nodes", (getter)Core_get_nodes, NULL, "nodes searched since new_search", NULL},
    {"memory", (getter)Core_get_memory, NULL, "bytes of the tables and buffers", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "companion.engine.native.Core",
    .tp_basicsize = sizeof(Core),
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One variant's compiled search: its board, tables and search loop.",
    .tp_methods = Core_methods,
    .tp_getset = Core_getset,
    .tp_init = (initproc)Core_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "native", "The engine's compiled search core (see native.c).", -1, NULL,
};

PyMODINIT_FUNC PyInit_native(void)
{
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&native_module);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "MAX_SQUARES", MAX_SQ);
    PyModule_AddIntConstant(m, "MAX_PLACEMENTS", MAX_OPTIONS);
    return m;
}
