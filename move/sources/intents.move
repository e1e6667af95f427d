// Intent Gateway on Sui: policies, per-sender vaults, validation as one ERC-1066 status byte, and
// relayed execution of a sender's signed intent. A Sui intent moves SUI only: Move cannot call an
// arbitrary target with data, so an intent sends `value` MIST from the sender's vault to `target`.
//
// NOT COMPILED OR RUN where it was written (no Sui toolchain there): see ../README.md for what
// must be checked with `sui move build` and `sui move test` before anyone relies on it.
module intent_gateway::intents;

use std::bcs;
use sui::address;
use sui::balance::{Self, Balance};
use sui::clock::Clock;
use sui::coin::{Self, Coin};
use sui::ed25519;
use sui::event;
use sui::hash;
use sui::sui::SUI;
use sui::table::{Self, Table};

// ERC-1066 status codes: the same bytes, in the same order of checks, as the gateway's Solidity
// validator (contracts/IntentValidator.sol). `validate` returns one; `execute` aborts with it.
const SUCCESS: u8 = 0x01;
const DISALLOWED: u8 = 0x10;
const REVOKED: u8 = 0x16;
const TOO_EARLY: u8 = 0x20;
const TOO_LATE: u8 = 0x21;
const NONCE_USED: u8 = 0x22;
const INSUFFICIENT_FUNDS: u8 = 0x54;
const UNTRUSTED: u8 = 0xE4;
const SIGNATURE_REQUIRED: u8 = 0xE5;

/// First field of every intent: binds a signature to this module's layout, not to another app's
/// personal messages.
const DOMAIN: vector<u8> = b"intent-gateway/sui/v1";

/// Sui's signature scheme flag for Ed25519 (also the first byte hashed into an Ed25519 address).
const ED25519_FLAG: u8 = 0x00;
/// The personal-message intent: scope PersonalMessage (3), version V0 (0), app Sui (0).
const PERSONAL_MESSAGE_INTENT: vector<u8> = vector[3, 0, 0];

/// One per deployment, shared at publication: every sender's vault and nonces.
public struct Hub has key {
    id: UID,
    vaults: Table<address, Vault>,
}

/// A sender's funds for intents, and its spent and cancelled nonces (each executes at most once).
public struct Vault has store {
    balance: Balance<SUI>,
    used: Table<u64, bool>,
    cancelled: Table<u64, bool>,
}

/// What a sender allows relayed intents to do. Shared so that a relayer's transaction can read
/// it; only `owner` (its creator, for good) can change it. Its object id is the intent's policyId.
public struct Policy has key {
    id: UID,
    owner: address,
    /// Empty: any target.
    allowed_targets: vector<address>,
    max_value_per_tx: u64,
    max_aggregate_value: u64,
    spent: u64,
    /// Unix seconds; 0 means no bound.
    valid_after: u64,
    valid_before: u64,
}

/// The intent as the sender signs it (signPersonalMessage of its BCS bytes) and as its hash is
/// taken (keccak256 of the same bytes). The gateway's TypeScript encoder writes the same layout.
public struct Intent has copy, drop {
    domain: vector<u8>,
    sender: address,
    target: address,
    value: u64,
    nonce: u64,
    valid_after: u64,
    valid_before: u64,
    policy_id: ID,
}

public struct IntentExecuted has copy, drop {
    intent_hash: vector<u8>,
    sender: address,
    target: address,
    value: u64,
    nonce: u64,
    policy_id: ID,
}

public struct NonceCancelled has copy, drop {
    sender: address,
    nonce: u64,
}

fun init(ctx: &mut TxContext) {
    transfer::share_object(Hub { id: object::new(ctx), vaults: table::new(ctx) });
}

// === Intents ===

public fun new_intent(
    sender: address,
    target: address,
    value: u64,
    nonce: u64,
    valid_after: u64,
    valid_before: u64,
    policy_id: ID,
): Intent {
    Intent { domain: DOMAIN, sender, target, value, nonce, valid_after, valid_before, policy_id }
}

public fun intent_bytes(intent: &Intent): vector<u8> {
    bcs::to_bytes(intent)
}

/// The X-Intent-Hash the gateway answers with, and the one IntentExecuted carries.
public fun intent_hash(intent: &Intent): vector<u8> {
    hash::keccak256(&bcs::to_bytes(intent))
}

/// The status of an intent under `policy` now: SUCCESS, or why it may not run. Never aborts.
public fun validate(
    hub: &Hub,
    policy: &Policy,
    clock: &Clock,
    sender: address,
    target: address,
    value: u64,
    nonce: u64,
    valid_after: u64,
    valid_before: u64,
): u8 {
    let intent = new_intent(sender, target, value, nonce, valid_after, valid_before, object::id(policy));
    check(hub, policy, clock, &intent)
}

/// Runs a sender's intent: the relayer sends it with the sender's signature (or the sender sends
/// it itself with an empty one). Aborts with the status code when the intent may not run.
public fun execute(
    hub: &mut Hub,
    policy: &mut Policy,
    clock: &Clock,
    sender: address,
    target: address,
    value: u64,
    nonce: u64,
    valid_after: u64,
    valid_before: u64,
    signature: vector<u8>,
    ctx: &mut TxContext,
) {
    let policy_id = object::id(policy);
    let intent = new_intent(sender, target, value, nonce, valid_after, valid_before, policy_id);
    let status = check(hub, policy, clock, &intent);
    assert!(status == SUCCESS, status as u64);

    let bytes = bcs::to_bytes(&intent);
    if (signature.is_empty()) {
        assert!(ctx.sender() == sender, SIGNATURE_REQUIRED as u64);
    } else {
        assert!(verify_personal_message(&signature, &bytes, sender), UNTRUSTED as u64);
    };

    policy.spent = policy.spent + value;
    ensure_vault(hub, sender, ctx);
    let vault = hub.vaults.borrow_mut(sender);
    vault.used.add(nonce, true);
    let payment = coin::take(&mut vault.balance, value, ctx);
    transfer::public_transfer(payment, target);
    event::emit(IntentExecuted { intent_hash: hash::keccak256(&bytes), sender, target, value, nonce, policy_id });
}

/// A sender gives up one of its nonces: validate answers REVOKED for it from now on.
public fun cancel_nonce(hub: &mut Hub, nonce: u64, ctx: &mut TxContext) {
    let sender = ctx.sender();
    ensure_vault(hub, sender, ctx);
    let vault = hub.vaults.borrow_mut(sender);
    assert!(!vault.used.contains(nonce), NONCE_USED as u64);
    if (!vault.cancelled.contains(nonce)) vault.cancelled.add(nonce, true);
    event::emit(NonceCancelled { sender, nonce });
}

// === Vaults ===

public fun deposit(hub: &mut Hub, payment: Coin<SUI>, ctx: &mut TxContext) {
    let sender = ctx.sender();
    deposit_for(hub, sender, payment, ctx);
}

public fun deposit_for(hub: &mut Hub, sender: address, payment: Coin<SUI>, ctx: &mut TxContext) {
    ensure_vault(hub, sender, ctx);
    hub.vaults.borrow_mut(sender).balance.join(payment.into_balance());
}

public fun withdraw(hub: &mut Hub, amount: u64, ctx: &mut TxContext): Coin<SUI> {
    let sender = ctx.sender();
    ensure_vault(hub, sender, ctx);
    let vault = hub.vaults.borrow_mut(sender);
    assert!(vault.balance.value() >= amount, INSUFFICIENT_FUNDS as u64);
    coin::take(&mut vault.balance, amount, ctx)
}

public fun balance_of(hub: &Hub, sender: address): u64 {
    if (hub.vaults.contains(sender)) hub.vaults.borrow(sender).balance.value() else 0
}

// === Policies ===

/// Creates and shares a policy owned by the caller; its id is the policyId intents name.
public fun create_policy(
    allowed_targets: vector<address>,
    max_value_per_tx: u64,
    max_aggregate_value: u64,
    valid_after: u64,
    valid_before: u64,
    ctx: &mut TxContext,
): ID {
    let policy = Policy {
        id: object::new(ctx),
        owner: ctx.sender(),
        allowed_targets,
        max_value_per_tx,
        max_aggregate_value,
        spent: 0,
        valid_after,
        valid_before,
    };
    let policy_id = object::id(&policy);
    transfer::share_object(policy);
    policy_id
}

/// The owner changes its policy's limits (a zero cap or a past valid_before stops it).
public fun update_policy(
    policy: &mut Policy,
    allowed_targets: vector<address>,
    max_value_per_tx: u64,
    max_aggregate_value: u64,
    valid_after: u64,
    valid_before: u64,
    ctx: &TxContext,
) {
    assert!(ctx.sender() == policy.owner, DISALLOWED as u64);
    policy.allowed_targets = allowed_targets;
    policy.max_value_per_tx = max_value_per_tx;
    policy.max_aggregate_value = max_aggregate_value;
    policy.valid_after = valid_after;
    policy.valid_before = valid_before;
}

// === Internals ===

/// The checks, in the Solidity validator's order. Time bounds follow EIP-3009: valid strictly
/// after valid_after and strictly before valid_before, in whole seconds of the Clock.
fun check(hub: &Hub, policy: &Policy, clock: &Clock, intent: &Intent): u8 {
    let has_vault = hub.vaults.contains(intent.sender);
    if (has_vault) {
        let vault = hub.vaults.borrow(intent.sender);
        if (vault.used.contains(intent.nonce)) return NONCE_USED;
        if (vault.cancelled.contains(intent.nonce)) return REVOKED;
    };

    if (policy.owner != intent.sender) return DISALLOWED;

    let now = clock.timestamp_ms() / 1000;
    if (now <= intent.valid_after || now <= policy.valid_after) return TOO_EARLY;
    if (expired(now, intent.valid_before) || expired(now, policy.valid_before)) return TOO_LATE;

    if (!policy.allowed_targets.is_empty() && !policy.allowed_targets.contains(&intent.target)) return DISALLOWED;

    if (intent.value > policy.max_value_per_tx) return INSUFFICIENT_FUNDS;
    // Written so that no value can overflow and turn the answer into an abort.
    if (intent.value > policy.max_aggregate_value || policy.spent > policy.max_aggregate_value - intent.value) {
        return INSUFFICIENT_FUNDS
    };
    let available = if (has_vault) hub.vaults.borrow(intent.sender).balance.value() else 0;
    if (intent.value > available) return INSUFFICIENT_FUNDS;

    SUCCESS
}

fun expired(now: u64, valid_before: u64): bool {
    valid_before != 0 && now >= valid_before
}

/// Opens `owner`'s vault if it has none. (A separate step from borrowing it: a reference returned
/// by a function taking `ctx` would keep `ctx` borrowed too.)
fun ensure_vault(hub: &mut Hub, owner: address, ctx: &mut TxContext) {
    if (!hub.vaults.contains(owner)) {
        hub.vaults.add(owner, Vault { balance: balance::zero(), used: table::new(ctx), cancelled: table::new(ctx) });
    };
}

/// Whether `serialized` (flag || signature || public key, as Sui wallets return it) is the
/// owner of `sender`'s signPersonalMessage signature of `message`.
public(package) fun verify_personal_message(serialized: &vector<u8>, message: &vector<u8>, sender: address): bool {
    if (serialized.length() != 97 || serialized[0] != ED25519_FLAG) return false;
    let mut signature = vector[];
    let mut public_key = vector[];
    let mut i = 1;
    while (i < 65) {
        signature.push_back(serialized[i]);
        i = i + 1;
    };
    while (i < 97) {
        public_key.push_back(serialized[i]);
        i = i + 1;
    };
    // An Ed25519 key's address is blake2b256(flag || public key).
    let mut flagged = vector[ED25519_FLAG];
    flagged.append(public_key);
    if (address::from_bytes(hash::blake2b256(&flagged)) != sender) return false;
    // signPersonalMessage signs blake2b256(intent || bcs(vector<u8> message)).
    let mut signed = PERSONAL_MESSAGE_INTENT;
    signed.append(bcs::to_bytes(message));
    ed25519::ed25519_verify(&signature, &public_key, &hash::blake2b256(&signed))
}

#[test_only]
public fun init_for_testing(ctx: &mut TxContext) {
    init(ctx)
}
