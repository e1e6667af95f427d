// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IIntentLedger, Intent, Policy, IntentStatus} from "./IntentTypes.sol";
import {PolicyRegistry} from "./PolicyRegistry.sol";

/// @notice Answers whether an intent may run now, as one ERC-1066 code. It reads policies from the
/// registry and spent or cancelled nonces, aggregate spending and deposits from the executor,
/// which creates it. It does not check who signed: the executor does (`checkSigned`).
contract IntentValidator {
    PolicyRegistry public immutable registry;
    IIntentLedger public immutable executor;

    constructor(PolicyRegistry registry_, IIntentLedger executor_) {
        registry = registry_;
        executor = executor_;
    }

    function canExecute(Intent calldata intent) external view returns (bytes1) {
        if (executor.nonceUsed(intent.sender, intent.nonce)) return IntentStatus.NONCE_USED;
        if (executor.nonceCancelled(intent.sender, intent.nonce)) return IntentStatus.REVOKED;

        Policy memory policy = registry.getPolicy(intent.policyId);
        if (policy.owner == address(0) || policy.owner != intent.sender) return IntentStatus.DISALLOWED;
        if (!_contains(policy.allowedChains, block.chainid)) return IntentStatus.UNSUPPORTED_CHAIN;

        // Time bounds follow EIP-3009: valid strictly after validAfter and strictly before validBefore.
        if (block.timestamp <= intent.validAfter || block.timestamp <= policy.validAfter) {
            return IntentStatus.TOO_EARLY;
        }
        if (_expired(intent.validBefore) || _expired(policy.validBefore)) return IntentStatus.TOO_LATE;

        if (!_allowsTarget(policy.allowedTargets, intent.target)) return IntentStatus.DISALLOWED;
        if (!_allowsSelector(policy.allowedSelectors, intent.data)) return IntentStatus.DISALLOWED;

        if (intent.value > policy.maxValuePerTx) return IntentStatus.INSUFFICIENT_FUNDS;
        // Written so that no value, however large, can overflow and turn the answer into a revert.
        if (
            intent.value > policy.maxAggregateValue
                || executor.policySpent(intent.policyId) > policy.maxAggregateValue - intent.value
        ) {
            return IntentStatus.INSUFFICIENT_FUNDS;
        }
        if (intent.value > executor.deposits(intent.sender)) return IntentStatus.INSUFFICIENT_FUNDS;

        return IntentStatus.SUCCESS;
    }

    function _expired(uint256 validBefore) private view returns (bool) {
        return validBefore != 0 && block.timestamp >= validBefore;
    }

    function _contains(uint256[] memory list, uint256 item) private pure returns (bool) {
        if (list.length == 0) return true;
        for (uint256 i = 0; i < list.length; i++) {
            if (list[i] == item) return true;
        }
        return false;
    }

    function _allowsTarget(address[] memory list, address target) private pure returns (bool) {
        if (list.length == 0) return true;
        for (uint256 i = 0; i < list.length; i++) {
            if (list[i] == target) return true;
        }
        return false;
    }

    function _allowsSelector(bytes4[] memory list, bytes calldata data) private pure returns (bool) {
        if (list.length == 0) return true;
        if (data.length < 4) return false;
        bytes4 selector = bytes4(data[:4]);
        for (uint256 i = 0; i < list.length; i++) {
            if (list[i] == selector) return true;
        }
        return false;
    }
}
