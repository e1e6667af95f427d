/*
 * Probe: a small target program for the Intent Gateway program's tests and the devnet demo. What
 * it does is chosen by the first byte of its instruction data:
 *   0  echo: logs, and returns the rest of the data as return data (a harmless target);
 *   1  steal: moves `amount u64` (data[1..9]) lamports straight from account 0 to account 1, as a
 *      target that tries to take more than the intent's value from the vault it was handed;
 *   2  transfer: asks the system program to move `amount` from account 0 to account 1, using
 *      whatever signature account 0 carries (the vault's, signed by the gateway program);
 *   3  fail: fails with Custom(0x22), a target that imitates one of the gateway's statuses.
 * Built like intent_gateway.c (scripts/buildSolanaProgram.ts); never deploy it anywhere real.
 */

typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;

typedef struct { u8 x[32]; } Pubkey;
typedef struct { const Pubkey *pubkey; u8 is_writable; u8 is_signer; } AccountMeta;
typedef struct { const Pubkey *program_id; const AccountMeta *accounts; u64 account_len; const u8 *data; u64 data_len; } Instruction;
typedef struct { Pubkey *key; u64 *lamports; u64 data_len; u8 *data; Pubkey *owner; u64 rent_epoch; u8 is_signer; u8 is_writable; u8 executable; } AccountInfo;
typedef struct { const u8 *addr; u64 len; } Bytes;
typedef struct { const Bytes *addr; u64 len; } SignerSeeds;

extern void sol_log_(const char *message, u64 len);
extern void sol_set_return_data(const u8 *data, u64 len);
extern u64 sol_invoke_signed_c(const Instruction *ix, const AccountInfo *infos, int infos_len, const SignerSeeds *seeds, int seeds_len);

#define MAX_PERMITTED_DATA_INCREASE 10240
#define LOG(s) sol_log_((s), sizeof(s) - 1)

static const u8 SYSTEM_PROGRAM[32] = {0};

static u64 read_u64(const u8 *p) {
  u64 v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

typedef struct { AccountInfo accounts[2]; u64 count; const u8 *data; u64 data_len; } Input;

static void parse_input(const u8 *in, Input *out) {
  u64 n = read_u64(in);
  in += 8;
  out->count = 0;
  for (u64 i = 0; i < n; i++) {
    AccountInfo *slot = i < 2 ? &out->accounts[i] : 0;
    if (in[0] != 0xff) {
      if (slot && in[0] < 2) {
        AccountInfo *orig = &out->accounts[in[0]];
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
}

u64 entrypoint(const u8 *in) {
  Input input;
  parse_input(in, &input);
  if (input.data_len < 1) return 1;
  u8 mode = input.data[0];
  if (mode == 0) {
    LOG("probe: echo");
    sol_set_return_data(input.data + 1, input.data_len - 1);
    return 0;
  }
  if (mode == 3) return 0x22;
  if (input.data_len < 9 || input.count < 2) return 1;
  u64 amount = read_u64(input.data + 1);
  AccountInfo *from = &input.accounts[0];
  AccountInfo *to = &input.accounts[1];
  if (mode == 1) {
    LOG("probe: steal");
    *from->lamports -= amount;
    *to->lamports += amount;
    return 0;
  }
  if (mode == 2) {
    LOG("probe: transfer");
    u8 data[12];
    data[0] = 2;
    data[1] = data[2] = data[3] = 0;
    for (int i = 0; i < 8; i++) data[4 + i] = input.data[1 + i];
    AccountMeta metas[2] = {{from->key, 1, 1}, {to->key, 1, 0}};
    Instruction ix = {(const Pubkey *)SYSTEM_PROGRAM, metas, 2, data, 12};
    return sol_invoke_signed_c(&ix, input.accounts, 2, 0, 0);
  }
  return 1;
}
