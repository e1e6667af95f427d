/*
 * Intent Gateway program for Solana: config, policies, vaults, validate, signed execute, cancel.
 *
 * Plain C for clang's BPF target (-mcpu=v1), packed into SBPF v3 and v0 programs by
 * scripts/packSbf.ts. No SDK headers: the few ABI types and syscalls are declared below.
 * Limits of the target: at most five arguments per function, a 512-byte stack frame, no
 * writable globals, no signed division. Layouts are documented in README.md.
 */

typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;

#define NULL ((void *)0)

/* ---- Solana ABI ------------------------------------------------------------------------ */

typedef struct { u8 x[32]; } Pubkey;
typedef struct { const u8 *addr; u64 len; } Bytes;            /* SolBytes and SolSignerSeed */
typedef struct { const Bytes *addr; u64 len; } SignerSeeds;
typedef struct { const Pubkey *pubkey; u8 is_writable; u8 is_signer; } AccountMeta;
typedef struct {
  const Pubkey *program_id;
  const AccountMeta *accounts;
  u64 account_len;
  const u8 *data;
  u64 data_len;
} Instruction;
/* SolAccountInfo: pointers into the serialized input, so the runtime can sync a CPI. */
typedef struct {
  Pubkey *key;
  u64 *lamports;
  u64 data_len;
  u8 *data;
  Pubkey *owner;
  u64 rent_epoch;
  u8 is_signer;
  u8 is_writable;
  u8 executable;
} AccountInfo;
typedef struct { u64 slot; i64 epoch_start_timestamp; u64 epoch; u64 leader_schedule_epoch; i64 unix_timestamp; } Clock;
typedef struct { u64 lamports_per_byte_year; u64 exemption_threshold_bits; u8 burn_percent; } Rent;

extern void sol_log_(const char *message, u64 len);
extern void sol_set_return_data(const u8 *data, u64 len);
extern u64 sol_get_clock_sysvar(void *clock);
extern u64 sol_get_rent_sysvar(void *rent);
extern u64 sol_keccak256(const Bytes *vals, u64 count, u8 *out);
extern u64 sol_try_find_program_address(const Bytes *seeds, u64 count, const Pubkey *program_id, Pubkey *address, u8 *bump);
extern u64 sol_invoke_signed_c(const Instruction *ix, const AccountInfo *infos, int infos_len, const SignerSeeds *seeds, int seeds_len);

#define MAX_ACCOUNTS 32
#define MAX_PERMITTED_DATA_INCREASE 10240
#define HEAP_START 0x300000000ULL

/* ---- Program constants (README.md, "Accounts" and "Errors") ----------------------------- */

#define IX_INIT_CONFIG 0
#define IX_SET_POLICY 1
#define IX_DEPOSIT 2
#define IX_WITHDRAW 3
#define IX_VALIDATE 4
#define IX_EXECUTE 5
#define IX_CANCEL 6
#define IX_EXECUTE_AS_SIGNER 7
#define IX_VALIDATE_AS_SIGNER 8

#define TAG_CONFIG 1
#define TAG_POLICY 2
#define TAG_VAULT 3
#define TAG_NONCE 4
#define TAG_DEPLOYMENT 5
#define LAYOUT_VERSION 1

#define CONFIG_SIZE 104
#define POLICY_SIZE 576
#define VAULT_SIZE 48
#define NONCE_SIZE 48
#define DEPLOYMENT_SIZE 48
#define MAX_METAS 16
#define MAX_TARGETS 8
#define MAX_PREFIXES 8
#define MAX_DELEGATES 4
#define PREFIX_SLOT 9  /* length byte + up to 8 bytes */
#define MAX_PREFIX_LEN 8

/* policy offsets */
#define P_OWNER 8
#define P_ID 40
#define P_MAX_PER_TX 72
#define P_MAX_AGGREGATE 80
#define P_SPENT 88
#define P_VALID_AFTER 96
#define P_VALID_BEFORE 104
#define P_TARGET_COUNT 112
#define P_PREFIX_COUNT 113
#define P_DELEGATE_COUNT 114
#define P_FLAGS 115
#define P_TARGETS 120
#define P_PREFIXES 376
#define P_DELEGATES 448
/* 576 total: 448 + 4 * 32 */

/* vault offsets */
#define V_OWNER 8
#define V_RESERVE 40

/* nonce record offsets */
#define N_STATE 3
#define N_HASH 8
#define N_SLOT 40
#define NONCE_EXECUTED 1
#define NONCE_CANCELLED 2

/* config offsets */
#define C_CLUSTER 8
#define C_AUTHORITY 40
/* 72..104 reserved */

/* canonical intent bytes */
#define K_DOMAIN 0
#define K_PROGRAM 24
#define K_CONFIG 56
#define K_SENDER 88
#define K_TARGET 120
#define K_VALUE 152
#define K_NONCE 160
#define K_VALID_AFTER 168
#define K_VALID_BEFORE 176
#define K_POLICY_ID 184
#define K_ACCOUNT_COUNT 216
#define K_ACCOUNTS 220
#define ACCOUNT_META_SIZE 34
#define DOMAIN_LEN 24

/* ERC-1066 codes, as IntentStatus in contracts/IntentTypes.sol */
#define ST_SUCCESS 0x01
#define ST_DISALLOWED 0x10
#define ST_TOO_EARLY 0x20
#define ST_TOO_LATE 0x21
#define ST_NONCE_USED 0x22
#define ST_INSUFFICIENT_FUNDS 0x54
#define ST_UNAUTHORIZED 0xE4

/* Custom program errors: Custom(n) */
#define E_INVALID_INSTRUCTION 1
#define E_NOT_ENOUGH_ACCOUNTS 2
#define E_MISSING_SIGNATURE 3
#define E_WRONG_ACCOUNT 4
#define E_NOT_OWNER 5
#define E_INSUFFICIENT_VAULT 6
#define E_WRONG_DEPLOYMENT 7
#define E_ALREADY_INITIALIZED 8
#define E_UNSUPPORTED_RENT 9
#define E_INVALID_POLICY 10
#define E_ARITHMETIC 11
#define E_CPI_FAILED 12
#define E_SIGNER_NOT_VAULT 13
#define E_NO_VALUE_RECIPIENT 14
#define E_VAULT_OVERDRAWN 15
#define E_TOO_MANY_ACCOUNTS 16
#define E_NOT_UPGRADE_AUTHORITY 17
#define E_FOREIGN_SIGNER 18

/* Account keys of the runtime: the instructions sysvar and the Ed25519 signature program. */
static const u8 INSTRUCTIONS_SYSVAR[32] = {0x06,0xa7,0xd5,0x17,0x18,0x7b,0xd1,0x66,0x35,0xda,0xd4,0x04,0x55,0xfd,0xc2,0xc0,0xc1,0x24,0xc6,0x8f,0x21,0x56,0x75,0xa5,0xdb,0xba,0xcb,0x5f,0x08,0x00,0x00,0x00};
/* The BPF upgradeable loader (Loader V3), owner of this program's account and program data. */
static const u8 LOADER_V3[32] = {0x02,0xa8,0xf6,0x91,0x4e,0x88,0xa1,0xb0,0xe2,0x10,0x15,0x3e,0xf7,0x63,0xae,0x2b,0x00,0xc2,0xb9,0x3d,0x16,0xc1,0x24,0xd2,0xc0,0x53,0x7a,0x10,0x04,0x80,0x00,0x00};
static const u8 ED25519_PROGRAM[32] = {0x03,0x7d,0x46,0xd6,0x7c,0x93,0xfb,0xbe,0x12,0xf9,0x42,0x8f,0x83,0x8d,0x40,0xff,0x05,0x70,0x74,0x49,0x27,0xf4,0x8a,0x64,0xfc,0xca,0x70,0x44,0x80,0x00,0x00,0x00};

/* ---- Small helpers (no libc) ------------------------------------------------------------- */

static void copy(u8 *dst, const u8 *src, u64 n) {
  for (u64 i = 0; i < n; i++) dst[i] = src[i];
}

static void zero(u8 *dst, u64 n) {
  for (u64 i = 0; i < n; i++) dst[i] = 0;
}

static int equal(const u8 *a, const u8 *b, u64 n) {
  for (u64 i = 0; i < n; i++) {
    if (a[i] != b[i]) return 0;
  }
  return 1;
}

static u64 read_u64(const u8 *p) {
  u64 v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

static u32 read_u16(const u8 *p) {
  return (u32)p[0] | ((u32)p[1] << 8);
}

static u32 read_u32(const u8 *p) {
  return (u32)p[0] | ((u32)p[1] << 8) | ((u32)p[2] << 16) | ((u32)p[3] << 24);
}

static void write_u64(u8 *p, u64 v) {
  for (int i = 0; i < 8; i++) {
    p[i] = (u8)v;
    v >>= 8;
  }
}

static void write_u32(u8 *p, u32 v) {
  for (int i = 0; i < 4; i++) {
    p[i] = (u8)v;
    v >>= 8;
  }
}

#define LOG(s) sol_log_((s), sizeof(s) - 1)

/* A bump allocator over the 32 KiB program heap; nothing is ever freed. */
typedef struct { u64 next; } Heap;

static u8 *heap_alloc(Heap *heap, u64 size) {
  u8 *p = (u8 *)heap->next;
  heap->next += (size + 7) & ~7ULL;
  return p;
}

/* ---- Input ------------------------------------------------------------------------------- */

typedef struct {
  AccountInfo accounts[MAX_ACCOUNTS];
  u64 count;          /* accounts parsed (at most MAX_ACCOUNTS) */
  const u8 *data;
  u64 data_len;
  const Pubkey *program_id;
} Input;

/* Reads Solana's aligned serialization (the BPF upgradeable loader's input). */
static void parse_input(const u8 *in, Input *out) {
  u64 n = read_u64(in);
  in += 8;
  out->count = 0;
  for (u64 i = 0; i < n; i++) {
    u8 dup = in[0];
    AccountInfo *slot = i < MAX_ACCOUNTS ? &out->accounts[i] : NULL;
    if (dup != 0xff) {
      /* A duplicate: the same account as an earlier one. */
      if (slot && dup < MAX_ACCOUNTS) {
        AccountInfo *orig = &out->accounts[dup];
        slot->key = orig->key;
        slot->lamports = orig->lamports;
        slot->data_len = orig->data_len;
        slot->data = orig->data;
        slot->owner = orig->owner;
        slot->rent_epoch = orig->rent_epoch;
        slot->is_signer = orig->is_signer;
        slot->is_writable = orig->is_writable;
        slot->executable = orig->executable;
      }
      in += 8;
    } else {
      u64 data_len = read_u64(in + 80);
      if (slot) {
        slot->is_signer = in[1];
        slot->is_writable = in[2];
        slot->executable = in[3];
        slot->key = (Pubkey *)(in + 8);
        slot->owner = (Pubkey *)(in + 40);
        slot->lamports = (u64 *)(in + 72);
        slot->data_len = data_len;
        slot->data = (u8 *)(in + 88);
      }
      in += 88 + data_len + MAX_PERMITTED_DATA_INCREASE;
      in = (const u8 *)(((u64)in + 7) & ~7ULL);
      if (slot) slot->rent_epoch = read_u64(in);
      in += 8;
    }
    if (slot) out->count = i + 1;
  }
  out->data_len = read_u64(in);
  out->data = in + 8;
  out->program_id = (const Pubkey *)(in + 8 + out->data_len);
}

static int owned_by(const AccountInfo *a, const Pubkey *program_id) {
  return equal(a->owner->x, program_id->x, 32);
}

/* ---- PDAs -------------------------------------------------------------------------------- */

/* Seeds with the bump appended: seeds[count] must have room for it. */
static u64 find_pda(Bytes *seeds, u64 count, const Pubkey *program_id, Pubkey *address, u8 *bump) {
  return sol_try_find_program_address(seeds, count, program_id, address, bump);
}

static const char POLICY_SEED[] = "policy";
static const char VAULT_SEED[] = "vault";
static const char NONCE_SEED[] = "nonce";
static const char CONFIG_SEED[] = "config";
static const char DEPLOYMENT_SEED[] = "deployment";

/* Checks `account` is the PDA of the seeds; writes the bump. Returns 0 or an error. */
static u64 expect_pda(const AccountInfo *account, Bytes *seeds, u64 count, const Pubkey *program_id, u8 *bump) {
  Pubkey address;
  if (find_pda(seeds, count, program_id, &address, bump) != 0) return E_WRONG_ACCOUNT;
  if (!equal(address.x, account->key->x, 32)) return E_WRONG_ACCOUNT;
  return 0;
}

/* ---- System program CPIs ----------------------------------------------------------------- */

static const u8 SYSTEM_PROGRAM[32] = {0};

/* The lamports that keep `space` bytes rent-exempt, from the rent sysvar (integer math: the
 * threshold is 2.0 on every cluster today, 1.0 after SIMD-0194). */
static u64 rent_exempt_minimum(u64 space, u64 *minimum) {
  Rent rent;
  if (sol_get_rent_sysvar(&rent) != 0) return E_UNSUPPORTED_RENT;
  u64 factor;
  if (rent.exemption_threshold_bits == 0x4000000000000000ULL) factor = 2;
  else if (rent.exemption_threshold_bits == 0x3ff0000000000000ULL) factor = 1;
  else return E_UNSUPPORTED_RENT;
  *minimum = (128 + space) * rent.lamports_per_byte_year * factor;
  return 0;
}

static u64 transfer(const AccountInfo *from, const AccountInfo *to, u64 lamports);

/* One system-program instruction on `account` alone, signed by its PDA seeds. */
static u64 system_call_signed(const AccountInfo *account, const u8 *data, u64 data_len, const SignerSeeds *signer) {
  AccountMeta metas[1] = {{account->key, 1, 1}};
  Instruction ix = {(const Pubkey *)SYSTEM_PROGRAM, metas, 1, data, data_len};
  AccountInfo infos[1];
  copy((u8 *)&infos[0], (const u8 *)account, sizeof(AccountInfo));
  infos[0].is_signer = 1;
  /* The length as the runtime left it after an earlier call (allocate), from the serialized
   * input just before the data; a stale length reads as a forbidden change. */
  infos[0].data_len = read_u64(account->data - 8);
  if (sol_invoke_signed_c(&ix, infos, 1, signer, 1) != 0) return E_CPI_FAILED;
  return 0;
}

/* Creates the PDA `account` with `lamports`, `space` bytes, owned by the program (whose id the
 * caller leaves one past the end of the seeds), paid by `payer`. An address someone funded
 * beforehand (to block the creation) is topped up, allocated and assigned instead, which
 * create_account would refuse. */
static u64 create_pda_account(const AccountInfo *payer, const AccountInfo *account, u64 lamports, u64 space, const SignerSeeds *signer) {
  const u8 *owner = signer->addr[signer->len].addr;
  u64 err;
  if (*account->lamports == 0) {
    u8 data[52];
    write_u32(data, 0);
    write_u64(data + 4, lamports);
    write_u64(data + 12, space);
    copy(data + 20, owner, 32);
    AccountMeta metas[2] = {{payer->key, 1, 1}, {account->key, 1, 1}};
    Instruction ix = {(const Pubkey *)SYSTEM_PROGRAM, metas, 2, data, 52};
    AccountInfo infos[2];
    copy((u8 *)&infos[0], (const u8 *)payer, sizeof(AccountInfo));
    copy((u8 *)&infos[1], (const u8 *)account, sizeof(AccountInfo));
    infos[1].is_signer = 1;
    if (sol_invoke_signed_c(&ix, infos, 2, signer, 1) != 0) return E_CPI_FAILED;
    return 0;
  }
  if (!equal(account->owner->x, SYSTEM_PROGRAM, 32) || account->data_len != 0) return E_WRONG_ACCOUNT;
  if (*account->lamports < lamports) {
    err = transfer(payer, account, lamports - *account->lamports);
    if (err) return err;
  }
  u8 allocate[12];
  write_u32(allocate, 8);
  write_u64(allocate + 4, space);
  err = system_call_signed(account, allocate, 12, signer);
  if (err) return err;
  u8 assign[36];
  write_u32(assign, 1);
  copy(assign + 4, owner, 32);
  return system_call_signed(account, assign, 36, signer);
}

static u64 transfer(const AccountInfo *from, const AccountInfo *to, u64 lamports) {
  u8 data[12];
  write_u32(data, 2);
  write_u64(data + 4, lamports);
  AccountMeta metas[2] = {{from->key, 1, 1}, {to->key, 1, 0}};
  Instruction ix = {(const Pubkey *)SYSTEM_PROGRAM, metas, 2, data, 12};
  AccountInfo infos[2];
  copy((u8 *)&infos[0], (const u8 *)from, sizeof(AccountInfo));
  copy((u8 *)&infos[1], (const u8 *)to, sizeof(AccountInfo));
  if (sol_invoke_signed_c(&ix, infos, 2, NULL, 0) != 0) return E_CPI_FAILED;
  return 0;
}

/* ---- Instructions ------------------------------------------------------------------------ */

/* Seeds for a CPI signature: the PDA's seeds, its bump, and (one past the end, read by
 * create_pda_account) the program id as the new account's owner. */
typedef struct {
  Bytes seeds[5];
  u8 bump;
} SeedList;

/* Deploying and initialising are separate transactions: in between, anyone could call
 * init_config and name the cluster. So only the program's upgrade authority may, as the loader
 * records it: the program account (Loader V3 state 2: tag u32, programdata address) names the
 * program data account (state 3: tag u32, slot u64, Option<authority>). Only the loader writes
 * accounts it owns, so their contents are the loader's word. */
static u64 expect_upgrade_authority(const Input *input, const AccountInfo *program, const AccountInfo *programdata, const AccountInfo *signer) {
  const Pubkey *loader = (const Pubkey *)LOADER_V3;
  if (!equal(program->key->x, input->program_id->x, 32) || !owned_by(program, loader)) return E_WRONG_ACCOUNT;
  if (program->data_len < 36 || read_u32(program->data) != 2 || !equal(program->data + 4, programdata->key->x, 32)) return E_WRONG_ACCOUNT;
  if (!owned_by(programdata, loader) || programdata->data_len < 45 || read_u32(programdata->data) != 3) return E_WRONG_ACCOUNT;
  if (programdata->data[12] != 1 || !equal(programdata->data + 13, signer->key->x, 32)) return E_NOT_UPGRADE_AUTHORITY;
  return 0;
}

/* init_config(cluster[32]): accounts payer (signer, writable; the program's upgrade authority),
 * config PDA ["config", cluster] (writable), system program, deployment marker PDA
 * ["deployment"] (writable), this program's account, its program data account. The marker makes
 * it once per program and cluster: nobody can add a config for another cluster's genesis hash
 * here, which would let intents signed for that cluster run on this one. */
static u64 init_config(Input *input) {
  if (input->count < 6) return E_NOT_ENOUGH_ACCOUNTS;
  if (input->data_len != 1 + 32) return E_INVALID_INSTRUCTION;
  AccountInfo *payer = &input->accounts[0];
  AccountInfo *config = &input->accounts[1];
  if (!payer->is_signer) return E_MISSING_SIGNATURE;
  u64 err = expect_upgrade_authority(input, &input->accounts[4], &input->accounts[5], payer);
  if (err) return err;
  const u8 *cluster = input->data + 1;
  SeedList s;
  s.seeds[0] = (Bytes){(const u8 *)CONFIG_SEED, 6};
  s.seeds[1] = (Bytes){cluster, 32};
  err = expect_pda(config, s.seeds, 2, input->program_id, &s.bump);
  if (err) return err;
  if (config->data_len != 0) return E_ALREADY_INITIALIZED;
  AccountInfo *marker = &input->accounts[3];
  SeedList m;
  m.seeds[0] = (Bytes){(const u8 *)DEPLOYMENT_SEED, 10};
  err = expect_pda(marker, m.seeds, 1, input->program_id, &m.bump);
  if (err) return err;
  if (marker->data_len != 0) return E_ALREADY_INITIALIZED;
  m.seeds[1] = (Bytes){&m.bump, 1};
  m.seeds[2] = (Bytes){input->program_id->x, 32};
  SignerSeeds marker_signer = {m.seeds, 2};
  u64 marker_lamports;
  err = rent_exempt_minimum(DEPLOYMENT_SIZE, &marker_lamports);
  if (err) return err;
  err = create_pda_account(payer, marker, marker_lamports, DEPLOYMENT_SIZE, &marker_signer);
  if (err) return err;
  marker->data[0] = TAG_DEPLOYMENT;
  marker->data[1] = LAYOUT_VERSION;
  marker->data[2] = m.bump;
  copy(marker->data + 8, config->key->x, 32);
  s.seeds[2] = (Bytes){&s.bump, 1};
  s.seeds[3] = (Bytes){input->program_id->x, 32};
  SignerSeeds signer = {s.seeds, 3};
  u64 lamports;
  err = rent_exempt_minimum(CONFIG_SIZE, &lamports);
  if (err) return err;
  err = create_pda_account(payer, config, lamports, CONFIG_SIZE, &signer);
  if (err) return err;
  u8 *d = config->data;
  d[0] = TAG_CONFIG;
  d[1] = LAYOUT_VERSION;
  d[2] = s.bump;
  copy(d + C_CLUSTER, cluster, 32);
  copy(d + C_AUTHORITY, payer->key->x, 32);
  return 0;
}

/* set_policy: creates the owner's policy PDA ["policy", owner, policy_id], or rewrites it. */
static u64 set_policy(Input *input) {
  if (input->count < 3) return E_NOT_ENOUGH_ACCOUNTS;
  const u8 *d = input->data;
  u64 len = input->data_len;
  if (len < 1 + 32 + 32 + 3) return E_INVALID_INSTRUCTION;
  u8 targets = d[65], prefixes = d[66], delegates = d[67];
  if (targets > MAX_TARGETS || prefixes > MAX_PREFIXES || delegates > MAX_DELEGATES) return E_INVALID_POLICY;
  u64 expected = 68 + (u64)targets * 32 + (u64)prefixes * PREFIX_SLOT + (u64)delegates * 32;
  if (len != expected) return E_INVALID_INSTRUCTION;
  AccountInfo *owner = &input->accounts[0];
  AccountInfo *policy = &input->accounts[1];
  if (!owner->is_signer) return E_MISSING_SIGNATURE;
  const u8 *policy_id = d + 1;
  SeedList s;
  s.seeds[0] = (Bytes){(const u8 *)POLICY_SEED, 6};
  s.seeds[1] = (Bytes){owner->key->x, 32};
  s.seeds[2] = (Bytes){policy_id, 32};
  u64 err = expect_pda(policy, s.seeds, 3, input->program_id, &s.bump);
  if (err) return err;
  const u8 *prefix_list = d + 68 + (u64)targets * 32;
  for (u64 i = 0; i < prefixes; i++) {
    if (prefix_list[i * PREFIX_SLOT] > MAX_PREFIX_LEN) return E_INVALID_POLICY;
  }
  u8 *p;
  if (policy->data_len == 0) {
    s.seeds[3] = (Bytes){&s.bump, 1};
    s.seeds[4] = (Bytes){input->program_id->x, 32};
    SignerSeeds signer = {s.seeds, 4};
    u64 lamports;
    err = rent_exempt_minimum(POLICY_SIZE, &lamports);
    if (err) return err;
    err = create_pda_account(owner, policy, lamports, POLICY_SIZE, &signer);
    if (err) return err;
    p = policy->data;
    p[0] = TAG_POLICY;
    p[1] = LAYOUT_VERSION;
    p[2] = s.bump;
    copy(p + P_OWNER, owner->key->x, 32);
    copy(p + P_ID, policy_id, 32);
    write_u64(p + P_SPENT, 0);
  } else {
    /* An update: only the owner's own policy account, and the spending so far stays. */
    if (!owned_by(policy, input->program_id) || policy->data_len != POLICY_SIZE) return E_WRONG_ACCOUNT;
    p = policy->data;
    if (p[0] != TAG_POLICY || !equal(p + P_OWNER, owner->key->x, 32)) return E_NOT_OWNER;
  }
  copy(p + P_MAX_PER_TX, d + 33, 8);
  copy(p + P_MAX_AGGREGATE, d + 41, 8);
  copy(p + P_VALID_AFTER, d + 49, 8);
  copy(p + P_VALID_BEFORE, d + 57, 8);
  p[P_TARGET_COUNT] = targets;
  p[P_PREFIX_COUNT] = prefixes;
  p[P_DELEGATE_COUNT] = delegates;
  p[P_FLAGS] = 0;
  zero(p + P_TARGETS, POLICY_SIZE - P_TARGETS);
  copy(p + P_TARGETS, d + 68, (u64)targets * 32);
  copy(p + P_PREFIXES, prefix_list, (u64)prefixes * PREFIX_SLOT);
  copy(p + P_DELEGATES, prefix_list + (u64)prefixes * PREFIX_SLOT, (u64)delegates * 32);
  return 0;
}

/* deposit(amount): accounts sender (signer, writable), vault PDA ["vault", sender] (writable),
 * system program. Creates the vault on first use; its rent is kept apart from the deposit. */
static u64 deposit(Input *input) {
  if (input->count < 3) return E_NOT_ENOUGH_ACCOUNTS;
  if (input->data_len != 9) return E_INVALID_INSTRUCTION;
  AccountInfo *sender = &input->accounts[0];
  AccountInfo *vault = &input->accounts[1];
  if (!sender->is_signer) return E_MISSING_SIGNATURE;
  u64 amount = read_u64(input->data + 1);
  SeedList s;
  s.seeds[0] = (Bytes){(const u8 *)VAULT_SEED, 5};
  s.seeds[1] = (Bytes){sender->key->x, 32};
  u64 err = expect_pda(vault, s.seeds, 2, input->program_id, &s.bump);
  if (err) return err;
  if (vault->data_len == 0) {
    s.seeds[2] = (Bytes){&s.bump, 1};
    s.seeds[3] = (Bytes){input->program_id->x, 32};
    SignerSeeds signer = {s.seeds, 3};
    u64 reserve;
    err = rent_exempt_minimum(VAULT_SIZE, &reserve);
    if (err) return err;
    if (reserve + amount < reserve) return E_ARITHMETIC;
    err = create_pda_account(sender, vault, reserve + amount, VAULT_SIZE, &signer);
    if (err) return err;
    u8 *v = vault->data;
    v[0] = TAG_VAULT;
    v[1] = LAYOUT_VERSION;
    v[2] = s.bump;
    copy(v + V_OWNER, sender->key->x, 32);
    write_u64(v + V_RESERVE, reserve);
    return 0;
  }
  if (!owned_by(vault, input->program_id) || vault->data_len != VAULT_SIZE || vault->data[0] != TAG_VAULT) return E_WRONG_ACCOUNT;
  if (amount == 0) return 0;
  return transfer(sender, vault, amount);
}

/* withdraw(amount): accounts sender (signer, writable), vault PDA (writable). */
static u64 withdraw(Input *input) {
  if (input->count < 2) return E_NOT_ENOUGH_ACCOUNTS;
  if (input->data_len != 9) return E_INVALID_INSTRUCTION;
  AccountInfo *sender = &input->accounts[0];
  AccountInfo *vault = &input->accounts[1];
  if (!sender->is_signer) return E_MISSING_SIGNATURE;
  if (!sender->is_writable || !vault->is_writable) return E_WRONG_ACCOUNT;
  SeedList s;
  s.seeds[0] = (Bytes){(const u8 *)VAULT_SEED, 5};
  s.seeds[1] = (Bytes){sender->key->x, 32};
  u64 err = expect_pda(vault, s.seeds, 2, input->program_id, &s.bump);
  if (err) return err;
  if (!owned_by(vault, input->program_id) || vault->data_len != VAULT_SIZE || vault->data[0] != TAG_VAULT) return E_WRONG_ACCOUNT;
  if (!equal(vault->data + V_OWNER, sender->key->x, 32)) return E_NOT_OWNER;
  u64 amount = read_u64(input->data + 1);
  u64 reserve = read_u64(vault->data + V_RESERVE);
  u64 balance = *vault->lamports;
  if (balance < reserve || amount > balance - reserve) return E_INSUFFICIENT_VAULT;
  *vault->lamports = balance - amount;
  *sender->lamports += amount;
  return 0;
}

/* ---- validate ---------------------------------------------------------------------------- */

static void log_hash(const u8 *hash, Heap *heap) {
  static const char HEX[] = "0123456789abcdef";
  static const char PREFIX[] = "intent hash 0x";
  u8 *line = heap_alloc(heap, sizeof(PREFIX) - 1 + 64);
  copy(line, (const u8 *)PREFIX, sizeof(PREFIX) - 1);
  for (u64 i = 0; i < 32; i++) {
    line[sizeof(PREFIX) - 1 + 2 * i] = HEX[hash[i] >> 4];
    line[sizeof(PREFIX) - 1 + 2 * i + 1] = HEX[hash[i] & 15];
  }
  sol_log_((const char *)line, sizeof(PREFIX) - 1 + 64);
}

static int is_after(i64 now, i64 bound) { return now > bound; }

/* EIP-3009 style, as IntentValidator._expired: 0 is no bound. */
static int expired(i64 now, i64 valid_before) { return valid_before != 0 && now >= valid_before; }

static int allows_target(const u8 *policy, const u8 *target) {
  u8 n = policy[P_TARGET_COUNT];
  if (n == 0) return 1;
  for (u64 i = 0; i < n; i++) {
    if (equal(policy + P_TARGETS + i * 32, target, 32)) return 1;
  }
  return 0;
}

static int allows_prefix(const u8 *policy, const u8 *data, u64 data_len) {
  u8 n = policy[P_PREFIX_COUNT];
  if (n == 0) return 1;
  for (u64 i = 0; i < n; i++) {
    const u8 *slot = policy + P_PREFIXES + i * PREFIX_SLOT;
    u64 len = slot[0];
    if (len <= data_len && equal(slot + 1, data, len)) return 1;
  }
  return 0;
}

/* The status as IntentValidator.canExecute decides it, in the same order. */
static u8 decide(const Input *input, const u8 *k, const u8 *data, u64 data_len, int as_signer) {
  const AccountInfo *policy = &input->accounts[1];
  const AccountInfo *vault = &input->accounts[2];
  const AccountInfo *nonce = &input->accounts[3];
  const Pubkey *program_id = input->program_id;

  if (owned_by(nonce, program_id) && nonce->data_len > 0 && nonce->data[0] == TAG_NONCE) return ST_NONCE_USED;

  /* A policy account the program does not own is no policy at all, whatever it holds. */
  if (!owned_by(policy, program_id) || policy->data_len != POLICY_SIZE) return ST_DISALLOWED;
  const u8 *p = policy->data;
  if (p[0] != TAG_POLICY || !equal(p + P_OWNER, k + K_SENDER, 32)) return ST_DISALLOWED;

  Clock clock;
  if (sol_get_clock_sysvar(&clock) != 0) return 0x00;
  i64 now = clock.unix_timestamp;
  if (!is_after(now, (i64)read_u64(k + K_VALID_AFTER)) || !is_after(now, (i64)read_u64(p + P_VALID_AFTER))) return ST_TOO_EARLY;
  if (expired(now, (i64)read_u64(k + K_VALID_BEFORE)) || expired(now, (i64)read_u64(p + P_VALID_BEFORE))) return ST_TOO_LATE;

  /* The program never calls itself on an intent's behalf (it would sign as the vault). */
  if (equal(k + K_TARGET, program_id->x, 32)) return ST_DISALLOWED;
  if (!allows_target(p, k + K_TARGET)) return ST_DISALLOWED;
  if (!allows_prefix(p, data, data_len)) return ST_DISALLOWED;

  u64 value = read_u64(k + K_VALUE);
  u64 max_per_tx = read_u64(p + P_MAX_PER_TX);
  u64 max_aggregate = read_u64(p + P_MAX_AGGREGATE);
  u64 spent = read_u64(p + P_SPENT);
  if (value > max_per_tx) return ST_INSUFFICIENT_FUNDS;
  if (value > max_aggregate || spent > max_aggregate - value) return ST_INSUFFICIENT_FUNDS;

  /* Agent as signer: account 2 is the sender's own account, which pays the value and the nonce
   * record's rent itself. */
  u64 available = 0;
  if (as_signer) {
    u64 rent;
    if (rent_exempt_minimum(NONCE_SIZE, &rent) != 0) return 0x00;
    if (*vault->lamports < rent) return ST_INSUFFICIENT_FUNDS;
    available = *vault->lamports - rent;
  } else if (owned_by(vault, program_id) && vault->data_len == VAULT_SIZE && vault->data[0] == TAG_VAULT) {
    u64 reserve = read_u64(vault->data + V_RESERVE);
    if (*vault->lamports > reserve) available = *vault->lamports - reserve;
  }
  if (value > available) return ST_INSUFFICIENT_FUNDS;
  return ST_SUCCESS;
}

/* The canonical intent bytes of an instruction, split into their parts. */
typedef struct {
  const u8 *k;        /* the whole canonical bytes */
  u64 len;
  u64 metas;          /* account meta count */
  const u8 *data;     /* the target instruction's data */
  u64 data_len;
  u8 vault_bump;
  u8 nonce_bump;
} Canonical;

/* Reads the canonical bytes after the tag and checks accounts 0..3 (config, policy PDA, vault PDA,
 * nonce PDA) are the deployment's and the PDAs the bytes imply. Shared by validate and execute. */
static u64 read_canonical(const Input *input, Canonical *c, int as_signer) {
  if (input->count < 4) return E_NOT_ENOUGH_ACCOUNTS;
  if (input->data_len < 1 + K_ACCOUNTS + 4) return E_INVALID_INSTRUCTION;
  const u8 *k = input->data + 1;
  u64 len = input->data_len - 1;
  u64 metas = read_u32(k + K_ACCOUNT_COUNT);
  if (metas > 64) return E_INVALID_INSTRUCTION;
  u64 data_at = K_ACCOUNTS + metas * ACCOUNT_META_SIZE;
  if (len < data_at + 4) return E_INVALID_INSTRUCTION;
  u64 data_len = read_u32(k + data_at);
  if (len != data_at + 4 + data_len) return E_INVALID_INSTRUCTION;
  c->k = k;
  c->len = len;
  c->metas = metas;
  c->data = k + data_at + 4;
  c->data_len = data_len;

  static const char DOMAIN[] = "intent-gateway/solana/v1";
  const AccountInfo *config = &input->accounts[0];
  if (!equal(k + K_DOMAIN, (const u8 *)DOMAIN, DOMAIN_LEN)) return E_WRONG_DEPLOYMENT;
  if (!equal(k + K_PROGRAM, input->program_id->x, 32)) return E_WRONG_DEPLOYMENT;
  if (!equal(k + K_CONFIG, config->key->x, 32)) return E_WRONG_DEPLOYMENT;
  if (!owned_by(config, input->program_id) || config->data_len != CONFIG_SIZE || config->data[0] != TAG_CONFIG) return E_WRONG_DEPLOYMENT;

  u8 bump;
  Bytes seeds[3];
  seeds[0] = (Bytes){(const u8 *)POLICY_SEED, 6};
  seeds[1] = (Bytes){k + K_SENDER, 32};
  seeds[2] = (Bytes){k + K_POLICY_ID, 32};
  u64 err = expect_pda(&input->accounts[1], seeds, 3, input->program_id, &bump);
  if (err) return err;
  if (as_signer) {
    /* Agent as signer: account 2 is the sender itself, not its vault. */
    if (!equal(input->accounts[2].key->x, k + K_SENDER, 32)) return E_WRONG_ACCOUNT;
    c->vault_bump = 0;
  } else {
    seeds[0] = (Bytes){(const u8 *)VAULT_SEED, 5};
    err = expect_pda(&input->accounts[2], seeds, 2, input->program_id, &c->vault_bump);
    if (err) return err;
  }
  seeds[0] = (Bytes){(const u8 *)NONCE_SEED, 5};
  seeds[2] = (Bytes){k + K_NONCE, 8};
  return expect_pda(&input->accounts[3], seeds, 3, input->program_id, &c->nonce_bump);
}

static u8 *hash_canonical(const Canonical *c, Heap *heap) {
  u8 *hash = heap_alloc(heap, 32);
  Bytes whole = {c->k, c->len};
  sol_keccak256(&whole, 1, hash);
  log_hash(hash, heap);
  return hash;
}

/* validate(canonical intent bytes): accounts config, policy PDA, vault PDA, nonce PDA. Returns
 * the one-byte status as return data and logs keccak256 of the canonical bytes. */
static u64 validate(Input *input, Heap *heap, int as_signer) {
  Canonical c;
  u64 err = read_canonical(input, &c, as_signer);
  if (err) return err;
  hash_canonical(&c, heap);
  u8 status = decide(input, c.k, c.data, c.data_len, as_signer);
  sol_set_return_data(&status, 1);
  return 0;
}

/* ---- execute and cancel ------------------------------------------------------------------ */

/* The policy's data when the policy account is the sender's policy of this program, else NULL. */
static const u8 *sender_policy(const Input *input, const u8 *sender) {
  const AccountInfo *policy = &input->accounts[1];
  if (!owned_by(policy, input->program_id) || policy->data_len != POLICY_SIZE) return NULL;
  const u8 *p = policy->data;
  if (p[0] != TAG_POLICY || !equal(p + P_OWNER, sender, 32)) return NULL;
  return p;
}

/* An offset/instruction-index pair of the Ed25519 instruction must point into that instruction
 * itself: index u16::MAX (the current one) or its own index. */
static int points_home(u32 index, u32 own) { return index == 0xFFFF || index == own; }

/* Checks, through the instructions sysvar, that the instruction right before this one is the
 * Ed25519 program's, verifying one signature whose key, message and signature all lie in that
 * instruction, over exactly the 32-byte `hash`, by the sender or a delegate of the policy. The
 * Ed25519 program has verified the signature itself, or the transaction would not run. */
static u64 check_signature(const Input *input, const AccountInfo *sysvar, const u8 *hash, const u8 *sender) {
  if (!equal(sysvar->key->x, INSTRUCTIONS_SYSVAR, 32)) return E_WRONG_ACCOUNT;
  const u8 *d = sysvar->data;
  u64 n = sysvar->data_len;
  if (n < 4) return ST_UNAUTHORIZED;
  u64 count = read_u16(d);
  u64 current = read_u16(d + n - 2);
  if (current == 0 || current >= count) return ST_UNAUTHORIZED;
  u64 own = current - 1;
  if (2 + 2 * count > n - 2) return ST_UNAUTHORIZED;
  u64 at = read_u16(d + 2 + 2 * own);
  if (at + 2 > n - 2) return ST_UNAUTHORIZED;
  u64 accounts = read_u16(d + at);
  at += 2 + accounts * 33;
  if (at + 32 + 2 > n - 2) return ST_UNAUTHORIZED;
  if (!equal(d + at, ED25519_PROGRAM, 32)) return ST_UNAUTHORIZED;
  at += 32;
  u64 len = read_u16(d + at);
  at += 2;
  if (at + len > n - 2) return ST_UNAUTHORIZED;
  const u8 *e = d + at;
  /* num_signatures u8, padding u8, then one record of seven u16s. */
  if (len < 16 || e[0] != 1) return ST_UNAUTHORIZED;
  u64 sig_at = read_u16(e + 2), key_at = read_u16(e + 6), msg_at = read_u16(e + 10), msg_len = read_u16(e + 12);
  if (!points_home(read_u16(e + 4), own) || !points_home(read_u16(e + 8), own) || !points_home(read_u16(e + 14), own)) return ST_UNAUTHORIZED;
  if (sig_at + 64 > len || key_at + 32 > len || msg_len != 32 || msg_at + 32 > len) return ST_UNAUTHORIZED;
  if (!equal(e + msg_at, hash, 32)) return ST_UNAUTHORIZED;
  const u8 *key = e + key_at;
  if (equal(key, sender, 32)) return 0;
  const u8 *p = sender_policy(input, sender);
  if (p) {
    for (u64 i = 0; i < p[P_DELEGATE_COUNT] && i < MAX_DELEGATES; i++) {
      if (equal(p + P_DELEGATES + i * 32, key, 32)) return 0;
    }
  }
  return ST_UNAUTHORIZED;
}

static void write_nonce_record(u8 *r, u8 bump, u8 state, const u8 *hash) {
  Clock clock;
  zero(r, NONCE_SIZE);
  r[0] = TAG_NONCE;
  r[1] = LAYOUT_VERSION;
  r[2] = bump;
  r[N_STATE] = state;
  if (hash) copy(r + N_HASH, hash, 32);
  if (sol_get_clock_sysvar(&clock) == 0) write_u64(r + N_SLOT, clock.slot);
}

/* execute(canonical intent bytes): accounts config, policy PDA (w), vault PDA (w), nonce PDA (w),
 * instructions sysvar, system program, target program, then one account per signed account meta,
 * in order. The Ed25519 instruction right before this one carries the signature. Refusal:
 * Custom(status) for the statuses of validate and 0xE4, Custom(n) for the errors. */
static u64 execute(Input *input, Heap *heap) {
  Canonical c;
  u64 err = read_canonical(input, &c, 0);
  if (err) return err;
  if (input->count < 7) return E_NOT_ENOUGH_ACCOUNTS;
  if (c.metas > MAX_METAS || input->count < 7 + c.metas) return E_TOO_MANY_ACCOUNTS;
  const u8 *k = c.k;
  const u8 *sender = k + K_SENDER;
  u8 *hash = hash_canonical(&c, heap);

  err = check_signature(input, &input->accounts[4], hash, sender);
  if (err) return err;
  u8 status = decide(input, k, c.data, c.data_len, 0);
  if (status != ST_SUCCESS) return status;

  AccountInfo *policy = &input->accounts[1];
  AccountInfo *vault = &input->accounts[2];
  AccountInfo *nonce = &input->accounts[3];
  const AccountInfo *target = &input->accounts[6];
  if (!policy->is_writable || !vault->is_writable || !nonce->is_writable) return E_WRONG_ACCOUNT;
  if (!equal(input->accounts[5].key->x, SYSTEM_PROGRAM, 32)) return E_WRONG_ACCOUNT;
  if (!equal(target->key->x, k + K_TARGET, 32)) return E_WRONG_ACCOUNT;
  /* decide() found the nonce unused: the record's address holds nothing of ours. */
  if (!equal(nonce->owner->x, SYSTEM_PROGRAM, 32) || nonce->data_len != 0) return E_WRONG_ACCOUNT;

  /* The accounts are the signed metas, in order; only the vault may sign (the program signs for
   * it), never an account that signed the transaction, such as the relayer. */
  const u8 *metas = k + K_ACCOUNTS;
  for (u64 i = 0; i < c.metas; i++) {
    const u8 *m = metas + i * ACCOUNT_META_SIZE;
    if (!equal(input->accounts[7 + i].key->x, m, 32)) return E_WRONG_ACCOUNT;
    if (m[32] && !equal(m, vault->key->x, 32)) return E_SIGNER_NOT_VAULT;
  }

  u64 value = read_u64(k + K_VALUE);
  AccountInfo *recipient = NULL;
  if (value > 0) {
    /* The value goes to the first account meta, which must be writable and not the vault. */
    if (c.metas == 0 || metas[32] || !metas[33] || equal(metas, vault->key->x, 32)) return E_NO_VALUE_RECIPIENT;
    recipient = &input->accounts[7];
  }

  u64 rent;
  err = rent_exempt_minimum(NONCE_SIZE, &rent);
  if (err) return err;
  u64 top_up = *nonce->lamports >= rent ? 0 : rent - *nonce->lamports;
  u64 reserve = read_u64(vault->data + V_RESERVE);
  u64 before = *vault->lamports;
  if (value + top_up < value || before < reserve || value + top_up > before - reserve) return ST_INSUFFICIENT_FUNDS;

  /* The nonce record, exactly once: allocated and assigned to the program by its PDA's
   * signature, its rent moved from the vault below (never paid by the relayer). */
  SeedList s;
  s.seeds[0] = (Bytes){(const u8 *)NONCE_SEED, 5};
  s.seeds[1] = (Bytes){sender, 32};
  s.seeds[2] = (Bytes){k + K_NONCE, 8};
  s.seeds[3] = (Bytes){&c.nonce_bump, 1};
  SignerSeeds nonce_signer = {s.seeds, 4};
  u8 allocate[12];
  write_u32(allocate, 8);
  write_u64(allocate + 4, NONCE_SIZE);
  err = system_call_signed(nonce, allocate, 12, &nonce_signer);
  if (err) return err;
  u8 assign[36];
  write_u32(assign, 1);
  copy(assign + 4, input->program_id->x, 32);
  err = system_call_signed(nonce, assign, 36, &nonce_signer);
  if (err) return err;
  write_nonce_record(nonce->data, c.nonce_bump, NONCE_EXECUTED, hash);
  u8 *p = policy->data;
  write_u64(p + P_SPENT, read_u64(p + P_SPENT) + value);

  /* The target instruction, the vault signing. Lamports move only after it: the runtime checks
   * at each call that the lamports the caller moved so far balance over the accounts it passes. */
  AccountMeta *cpi_metas = (AccountMeta *)heap_alloc(heap, sizeof(AccountMeta) * (c.metas + 1));
  AccountInfo *infos = (AccountInfo *)heap_alloc(heap, sizeof(AccountInfo) * (c.metas + 1));
  for (u64 i = 0; i < c.metas; i++) {
    const u8 *m = metas + i * ACCOUNT_META_SIZE;
    cpi_metas[i].pubkey = input->accounts[7 + i].key;
    cpi_metas[i].is_signer = m[32] ? 1 : 0;
    cpi_metas[i].is_writable = m[33] ? 1 : 0;
    copy((u8 *)&infos[i], (const u8 *)&input->accounts[7 + i], sizeof(AccountInfo));
    if (m[32]) infos[i].is_signer = 1;
  }
  copy((u8 *)&infos[c.metas], (const u8 *)target, sizeof(AccountInfo));
  Instruction ix = {target->key, cpi_metas, c.metas, c.data, c.data_len};
  Bytes vault_seeds[3];
  vault_seeds[0] = (Bytes){(const u8 *)VAULT_SEED, 5};
  vault_seeds[1] = (Bytes){sender, 32};
  vault_seeds[2] = (Bytes){&c.vault_bump, 1};
  SignerSeeds vault_signer = {vault_seeds, 3};
  if (sol_invoke_signed_c(&ix, infos, (int)(c.metas + 1), &vault_signer, 1) != 0) return E_CPI_FAILED;

  /* Whatever the target did, the vault lost nothing to it (the runtime lets no other program
   * debit it; this holds the program to it too), then pays the value and the record's rent. */
  if (*vault->lamports < before) return E_VAULT_OVERDRAWN;
  u64 extra = *vault->lamports - before;
  if (*nonce->lamports < rent) top_up = rent - *nonce->lamports;
  else top_up = 0;
  *vault->lamports -= top_up;
  *nonce->lamports += top_up;
  if (recipient) {
    *vault->lamports -= value;
    *recipient->lamports += value;
  }
  if (before + extra - *vault->lamports > value + rent || *vault->lamports < reserve) return E_VAULT_OVERDRAWN;
  return 0;
}

/* cancel(nonce u64): accounts sender (signer, writable; pays the record's rent), nonce PDA
 * ["nonce", sender, nonce] (writable), system program. Marks the nonce used without executing. */
static u64 cancel(Input *input) {
  if (input->count < 3) return E_NOT_ENOUGH_ACCOUNTS;
  if (input->data_len != 9) return E_INVALID_INSTRUCTION;
  AccountInfo *sender = &input->accounts[0];
  AccountInfo *nonce = &input->accounts[1];
  if (!sender->is_signer) return E_MISSING_SIGNATURE;
  SeedList s;
  s.seeds[0] = (Bytes){(const u8 *)NONCE_SEED, 5};
  s.seeds[1] = (Bytes){sender->key->x, 32};
  s.seeds[2] = (Bytes){input->data + 1, 8};
  u64 err = expect_pda(nonce, s.seeds, 3, input->program_id, &s.bump);
  if (err) return err;
  if (owned_by(nonce, input->program_id) && nonce->data_len > 0 && nonce->data[0] == TAG_NONCE) return ST_NONCE_USED;
  s.seeds[3] = (Bytes){&s.bump, 1};
  s.seeds[4] = (Bytes){input->program_id->x, 32};
  SignerSeeds signer = {s.seeds, 4};
  u64 lamports;
  err = rent_exempt_minimum(NONCE_SIZE, &lamports);
  if (err) return err;
  err = create_pda_account(sender, nonce, lamports, NONCE_SIZE, &signer);
  if (err) return err;
  write_nonce_record(nonce->data, s.bump, NONCE_CANCELLED, NULL);
  return 0;
}

/* execute_as_signer(canonical intent bytes): the agent's own wallet signs the transaction, the
 * relayer only pays its fee. Accounts config, policy PDA (w), sender (signer, w; pays the nonce
 * record's rent and the value), nonce PDA (w), system program, target program, then one account
 * per signed account meta, in order. No Ed25519 instruction: the sender's signature of the
 * transaction (whose message holds these canonical bytes) is the authorization, and it passes to
 * the target for the metas that ask for the sender as a signer, and only for those: no other
 * signer of the transaction (the fee payer above all) may appear among the metas, so the target
 * cannot spend it. The same policy, status, window and nonce rules as execute. */
static u64 execute_as_signer(Input *input, Heap *heap) {
  Canonical c;
  u64 err = read_canonical(input, &c, 1);
  if (err) return err;
  if (input->count < 6) return E_NOT_ENOUGH_ACCOUNTS;
  if (c.metas > MAX_METAS || input->count < 6 + c.metas) return E_TOO_MANY_ACCOUNTS;
  const u8 *k = c.k;
  AccountInfo *policy = &input->accounts[1];
  AccountInfo *sender = &input->accounts[2];
  AccountInfo *nonce = &input->accounts[3];
  const AccountInfo *target = &input->accounts[5];
  u8 *hash = hash_canonical(&c, heap);
  if (!sender->is_signer) return E_MISSING_SIGNATURE;
  u8 status = decide(input, k, c.data, c.data_len, 1);
  if (status != ST_SUCCESS) return status;

  if (!policy->is_writable || !sender->is_writable || !nonce->is_writable) return E_WRONG_ACCOUNT;
  if (!equal(input->accounts[4].key->x, SYSTEM_PROGRAM, 32)) return E_WRONG_ACCOUNT;
  if (!equal(target->key->x, k + K_TARGET, 32)) return E_WRONG_ACCOUNT;

  /* The accounts are the signed metas, in order. A meta may ask for a signer only if it is the
   * sender; and no account that signed the transaction but the sender may be passed at all, so
   * the fee payer's signature never reaches the target (signer privileges extend to it). */
  const u8 *metas = k + K_ACCOUNTS;
  for (u64 i = 0; i < c.metas; i++) {
    const u8 *m = metas + i * ACCOUNT_META_SIZE;
    const AccountInfo *a = &input->accounts[6 + i];
    if (!equal(a->key->x, m, 32)) return E_WRONG_ACCOUNT;
    if (m[32] && !equal(m, sender->key->x, 32)) return E_SIGNER_NOT_VAULT;
    if (a->is_signer && !equal(m, sender->key->x, 32)) return E_FOREIGN_SIGNER;
  }

  u64 value = read_u64(k + K_VALUE);
  AccountInfo *recipient = NULL;
  if (value > 0) {
    /* The value goes to the first account meta, which must be writable, not a signer and not the sender. */
    if (c.metas == 0 || metas[32] || !metas[33] || equal(metas, sender->key->x, 32)) return E_NO_VALUE_RECIPIENT;
    recipient = &input->accounts[6];
  }
  u64 rent;
  err = rent_exempt_minimum(NONCE_SIZE, &rent);
  if (err) return err;
  if (value + rent < value || value + rent > *sender->lamports) return ST_INSUFFICIENT_FUNDS;

  /* The nonce record, exactly once, paid by the sender (never by the fee payer). */
  SeedList s;
  s.seeds[0] = (Bytes){(const u8 *)NONCE_SEED, 5};
  s.seeds[1] = (Bytes){sender->key->x, 32};
  s.seeds[2] = (Bytes){k + K_NONCE, 8};
  s.seeds[3] = (Bytes){&c.nonce_bump, 1};
  s.seeds[4] = (Bytes){input->program_id->x, 32};
  SignerSeeds nonce_signer = {s.seeds, 4};
  err = create_pda_account(sender, nonce, rent, NONCE_SIZE, &nonce_signer);
  if (err) return err;
  write_nonce_record(nonce->data, c.nonce_bump, NONCE_EXECUTED, hash);
  u8 *p = policy->data;
  write_u64(p + P_SPENT, read_u64(p + P_SPENT) + value);
  if (recipient) {
    err = transfer(sender, recipient, value);
    if (err) return err;
  }

  /* The target instruction, with the signatures the transaction carries: the sender's only. */
  AccountMeta *cpi_metas = (AccountMeta *)heap_alloc(heap, sizeof(AccountMeta) * (c.metas + 1));
  AccountInfo *infos = (AccountInfo *)heap_alloc(heap, sizeof(AccountInfo) * (c.metas + 1));
  for (u64 i = 0; i < c.metas; i++) {
    const u8 *m = metas + i * ACCOUNT_META_SIZE;
    cpi_metas[i].pubkey = input->accounts[6 + i].key;
    cpi_metas[i].is_signer = m[32] ? 1 : 0;
    cpi_metas[i].is_writable = m[33] ? 1 : 0;
    copy((u8 *)&infos[i], (const u8 *)&input->accounts[6 + i], sizeof(AccountInfo));
  }
  copy((u8 *)&infos[c.metas], (const u8 *)target, sizeof(AccountInfo));
  Instruction ix = {target->key, cpi_metas, c.metas, c.data, c.data_len};
  if (sol_invoke_signed_c(&ix, infos, (int)(c.metas + 1), NULL, 0) != 0) return E_CPI_FAILED;
  return 0;
}

/* ---- Entry ------------------------------------------------------------------------------- */

u64 entrypoint(const u8 *in) {
  Heap heap = {HEAP_START};
  Input *input = (Input *)heap_alloc(&heap, sizeof(Input));
  parse_input(in, input);
  if (input->data_len < 1) return E_INVALID_INSTRUCTION;
  switch (input->data[0]) {
    case IX_INIT_CONFIG: return init_config(input);
    case IX_SET_POLICY: return set_policy(input);
    case IX_DEPOSIT: return deposit(input);
    case IX_WITHDRAW: return withdraw(input);
    case IX_VALIDATE: return validate(input, &heap, 0);
    case IX_EXECUTE: return execute(input, &heap);
    case IX_CANCEL: return cancel(input);
    case IX_EXECUTE_AS_SIGNER: return execute_as_signer(input, &heap);
    case IX_VALIDATE_AS_SIGNER: return validate(input, &heap, 1);
    default: return E_INVALID_INSTRUCTION;
  }
}
