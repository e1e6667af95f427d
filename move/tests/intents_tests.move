// Unit tests for `sui move test`. NOT RUN where they were written (no Sui toolchain there).
// The vectors come from the gateway's TypeScript tests (src/chains/sui/encodeSuiIntent.test.ts):
// the same intent bytes, hash and signPersonalMessage signature must hold on both sides.
#[test_only]
module intent_gateway::intents_tests;

use intent_gateway::intents::{Self, Hub, Policy};
use sui::clock;
use sui::coin;
use sui::sui::SUI;
use sui::test_scenario as ts;

const SENDER: address = @0x6c889013fb165a3a991a62d706af2435d3145a2655347074db6fc94b0eb97ad3;
const TARGET: address = @0x2222222222222222222222222222222222222222222222222222222222222222;
const RELAYER: address = @0x5e1a7e5;
const OTHER: address = @0x07;

const INTENT_BYTES: vector<u8> = x"15696e74656e742d676174657761792f7375692f76316c889013fb165a3a991a62d706af2435d3145a2655347074db6fc94b0eb97ad32222222222222222222222222222222222222222222222222222222222222222e8030000000000000700000000000000000000000000000000f15365000000009e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e";
const INTENT_HASH: vector<u8> = x"7a2767fc47701c2eb337593a6d551dda59e18a0326f796e5d03757a0000da970";
// flag 0x00 || 64-byte Ed25519 signature || 32-byte public key, as signPersonalMessage returns it.
const SIGNATURE: vector<u8> = x"00c75144a0ff614bfd03aee81d91b55a0db447e6fee9ae467ef3080b348eeb5368b69befb2910514d876469dd7350424eab7255225be7c58b737144f18be3c4e01fd1724385aa0c75b64fb78cd602fa1d991fdebf76b13c58ed702eac835e9f618";

fun vector_intent(): intents::Intent {
    intents::new_intent(SENDER, TARGET, 1000, 7, 0, 1_700_000_000, object::id_from_address(@0x9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e))
}

#[test]
fun intent_bytes_and_hash_match_the_gateway() {
    let intent = vector_intent();
    assert!(intents::intent_bytes(&intent) == INTENT_BYTES);
    assert!(intents::intent_hash(&intent) == INTENT_HASH);
}

#[test]
fun wallet_signature_verifies_for_its_sender_only() {
    assert!(intents::verify_personal_message(&SIGNATURE, &INTENT_BYTES, SENDER));
    assert!(!intents::verify_personal_message(&SIGNATURE, &INTENT_BYTES, OTHER));
    let mut changed = INTENT_BYTES;
    *vector::borrow_mut(&mut changed, 60) = 0;
    assert!(!intents::verify_personal_message(&SIGNATURE, &changed, SENDER));
}

#[test]
fun validate_answers_in_the_solidity_order() {
    let mut scenario = ts::begin(SENDER);
    intents::init_for_testing(scenario.ctx());
    scenario.next_tx(SENDER);
    {
        intents::create_policy(vector[], 1_000, 5_000, 0, 0, scenario.ctx());
        let mut hub = scenario.take_shared<Hub>();
        intents::deposit(&mut hub, coin::mint_for_testing<SUI>(2_000, scenario.ctx()), scenario.ctx());
        ts::return_shared(hub);
    };
    scenario.next_tx(SENDER);
    let mut hub = scenario.take_shared<Hub>();
    let mut policy = scenario.take_shared<Policy>();
    let mut clock = clock::create_for_testing(scenario.ctx());
    clock.set_for_testing(1_000_000_000); // unix second 1_000_000

    assert!(intents::validate(&hub, &policy, &clock, SENDER, TARGET, 500, 1, 0, 0) == 0x01);
    assert!(intents::validate(&hub, &policy, &clock, OTHER, TARGET, 500, 1, 0, 0) == 0x10);
    assert!(intents::validate(&hub, &policy, &clock, SENDER, TARGET, 500, 1, 1_000_000, 0) == 0x20);
    assert!(intents::validate(&hub, &policy, &clock, SENDER, TARGET, 500, 1, 0, 1_000_000) == 0x21);
    assert!(intents::validate(&hub, &policy, &clock, SENDER, TARGET, 1_500, 1, 0, 0) == 0x54);
    assert!(intents::validate(&hub, &policy, &clock, SENDER, TARGET, 0xFFFF_FFFF_FFFF_FFFF, 1, 0, 0) == 0x54);

    // The sender runs its own intent without a signature; the nonce is then spent.
    intents::execute(&mut hub, &mut policy, &clock, SENDER, TARGET, 500, 1, 0, 0, vector[], scenario.ctx());
    assert!(intents::validate(&hub, &policy, &clock, SENDER, TARGET, 500, 1, 0, 0) == 0x22);
    assert!(intents::balance_of(&hub, SENDER) == 1_500);

    intents::cancel_nonce(&mut hub, 2, scenario.ctx());
    assert!(intents::validate(&hub, &policy, &clock, SENDER, TARGET, 500, 2, 0, 0) == 0x16);

    clock.destroy_for_testing();
    ts::return_shared(policy);
    ts::return_shared(hub);
    scenario.end();
}

#[test]
#[expected_failure(abort_code = 0xE5, location = intent_gateway::intents)]
fun a_relayer_cannot_execute_an_unsigned_intent() {
    let mut scenario = ts::begin(SENDER);
    intents::init_for_testing(scenario.ctx());
    scenario.next_tx(SENDER);
    {
        intents::create_policy(vector[], 1_000, 5_000, 0, 0, scenario.ctx());
        let mut hub = scenario.take_shared<Hub>();
        intents::deposit(&mut hub, coin::mint_for_testing<SUI>(2_000, scenario.ctx()), scenario.ctx());
        ts::return_shared(hub);
    };
    scenario.next_tx(RELAYER);
    let mut hub = scenario.take_shared<Hub>();
    let mut policy = scenario.take_shared<Policy>();
    let mut clock = clock::create_for_testing(scenario.ctx());
    clock.set_for_testing(1_000_000_000);
    intents::execute(&mut hub, &mut policy, &clock, SENDER, TARGET, 500, 1, 0, 0, vector[], scenario.ctx());
    abort 0
}
