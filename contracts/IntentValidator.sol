// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IIntentLedger, Intent} from "./IntentTypes.sol";
import {IntentLedger} from "./IntentLedger.sol";
import {PolicyRegistry} from "./PolicyRegistry.sol";

/// @notice Answers whether an intent may run now through the executor, as one ERC-1066 code: the
/// address gateways read `canExecute` from, as before the ledger existed. The checks themselves
/// live in the ledger, the one place both execution modes share. It does not check who signed: the
/// executor does (`checkSigned`).
contract IntentValidator {
    PolicyRegistry public immutable registry;
    IIntentLedger public immutable executor;
    IntentLedger public immutable ledger;

    constructor(PolicyRegistry registry_, IIntentLedger executor_, IntentLedger ledger_) {
        registry = registry_;
        executor = executor_;
        ledger = ledger_;
    }

    function canExecute(Intent calldata intent) external view returns (bytes1) {
        return ledger.canExecute(intent);
    }
}
