// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {EIP7702Utils} from "@openzeppelin/contracts/account/utils/EIP7702Utils.sol";
import {BatchIntent, Call, IIntentLedger, Intent, IntentStatus, Policy} from "./IntentTypes.sol";
import {PolicyRegistry} from "./PolicyRegistry.sol";

/// @notice The one place that holds the policy checks and the records of both execution modes:
/// per-sender nonces (used or cancelled: one nonce space per sender whichever mode spends it),
/// per-policy spending and the executor's deposits. A sender's records are written only by the
/// sender's own address (account mode: the EIP-7702 account calls as itself) or by the executor
/// this ledger was created for (executor mode, once it checked the signature). Deposits, whose ETH
/// the executor holds, only by the executor. Nobody owns it and nothing in it can be replaced.
contract IntentLedger is IIntentLedger {
    /// @notice The most calls one account-mode intent may carry.
    uint256 public constant MAX_CALLS = 16;

    enum NonceState {
        Unused,
        Used,
        Cancelled
    }

    PolicyRegistry public immutable registry;
    /// @notice The executor that created this ledger: the only writer of deposits, and a writer of
    /// nonces and spending for any sender (it checks signatures first).
    address public immutable executor;

    mapping(address => uint256) public deposits;
    mapping(bytes32 => uint256) public policySpent;
    /// @dev Each sender's nonces, two bits (a NonceState) each, 128 to a word (word `nonce >> 7`,
    /// bits `(nonce & 127) * 2`): a sender that counts its nonces up writes a fresh slot once per
    /// 128 intents (a write to a slot already non-zero costs 2,900 gas where a fresh one costs
    /// 20,000), and the chain's state grows by one slot per 128 intents, not one per intent.
    mapping(address => mapping(uint256 => uint256)) private nonceWords;

    event NonceCancelled(address indexed sender, uint256 indexed nonce);

    error ExecutionDenied(bytes1 status);
    error NotAllowedToWrite(address caller, address sender);
    error InsufficientDeposit(uint256 available, uint256 requested);

    modifier onlyExecutor() {
        if (msg.sender != executor) revert NotAllowedToWrite(msg.sender, address(0));
        _;
    }

    constructor(PolicyRegistry registry_, address executor_) {
        registry = registry_;
        executor = executor_;
    }

    function nonceUsed(address sender, uint256 nonce) external view returns (bool) {
        return _nonceState(sender, nonce) == NonceState.Used;
    }

    function nonceCancelled(address sender, uint256 nonce) external view returns (bool) {
        return _nonceState(sender, nonce) == NonceState.Cancelled;
    }

    // ---- executor mode ----

    /// @notice Whether the executor may run `intent` now (value paid from the sender's deposit), as
    /// one ERC-1066 code. The signature is the executor's to check (`checkSigned`).
    function canExecute(Intent calldata intent) public view returns (bytes1) {
        (bytes1 status, Policy memory policy) = _checkHeader(intent.sender, intent.nonce, intent.validAfter, intent.validBefore, intent.policyId);
        if (status != IntentStatus.SUCCESS) return status;
        status = _checkCall(policy, intent.target, intent.data, false, intent.sender);
        if (status != IntentStatus.SUCCESS) return status;
        if (!_withinLimits(policy, intent.policyId, intent.value)) return IntentStatus.INSUFFICIENT_FUNDS;
        if (intent.value > deposits[intent.sender]) return IntentStatus.INSUFFICIENT_FUNDS;
        return IntentStatus.SUCCESS;
    }

    /// @notice Checks `intent` as `canExecute` does and records it: its nonce used, its value spent
    /// under its policy and taken from the sender's deposit. Reverts ExecutionDenied otherwise.
    function useIntent(Intent calldata intent) external onlyExecutor {
        bytes1 status = canExecute(intent);
        if (status != IntentStatus.SUCCESS) revert ExecutionDenied(status);
        _setNonceState(intent.sender, intent.nonce, NonceState.Used);
        deposits[intent.sender] -= intent.value;
        policySpent[intent.policyId] += intent.value;
    }

    /// @notice Adds ETH the executor received to a sender's deposit.
    function credit(address sender, uint256 amount) external onlyExecutor {
        deposits[sender] += amount;
    }

    /// @notice Takes ETH the executor pays out from a sender's deposit.
    function debit(address sender, uint256 amount) external onlyExecutor {
        uint256 available = deposits[sender];
        if (amount > available) revert InsufficientDeposit(available, amount);
        deposits[sender] = available - amount;
    }

    // ---- account mode ----

    /// @notice Whether the account `batch.sender` may run `batch` now from its own address (value
    /// paid from its own ETH), as one ERC-1066 code and the index of the call it concerns (0 when
    /// it concerns the whole intent). The signature is the account's to check.
    function canExecuteBatch(BatchIntent calldata batch) public view returns (bytes1 status, uint256 callIndex) {
        Policy memory policy;
        (status, policy) = _checkHeader(batch.sender, batch.nonce, batch.validAfter, batch.validBefore, batch.policyId);
        if (status != IntentStatus.SUCCESS) return (status, 0);
        uint256 count = batch.calls.length;
        if (count == 0 || count > MAX_CALLS) return (IntentStatus.UNSUPPORTED_ACTION, 0);
        uint256 total = 0;
        for (uint256 i = 0; i < count; i++) {
            Call calldata call = batch.calls[i];
            status = _checkCall(policy, call.target, call.data, true, batch.sender);
            if (status != IntentStatus.SUCCESS) return (status, i);
            // The caps bound the intent's summed value, not each call's: a batch of small calls is
            // one transaction's spending.
            if (call.value > policy.maxValuePerTx - total) return (IntentStatus.INSUFFICIENT_FUNDS, i);
            total += call.value;
            if (!_withinLimits(policy, batch.policyId, total) || total > batch.sender.balance) {
                return (IntentStatus.INSUFFICIENT_FUNDS, i);
            }
        }
        return (IntentStatus.SUCCESS, 0);
    }

    /// @notice Checks `batch` as `canExecuteBatch` does and records it (nonce used, value spent under
    /// its policy). Only the account itself may: it calls as `batch.sender` after checking the
    /// signature. Reverts ExecutionDenied otherwise.
    function useBatch(BatchIntent calldata batch) external {
        if (msg.sender != batch.sender) revert NotAllowedToWrite(msg.sender, batch.sender);
        (bytes1 status,) = canExecuteBatch(batch);
        if (status != IntentStatus.SUCCESS) revert ExecutionDenied(status);
        uint256 total = 0;
        for (uint256 i = 0; i < batch.calls.length; i++) {
            total += batch.calls[i].value;
        }
        _setNonceState(batch.sender, batch.nonce, NonceState.Used);
        policySpent[batch.policyId] += total;
    }

    /// @notice Whether `signer`'s signature counts for `sender`'s account-mode intents under
    /// `policyId`: a delegate (session key) of that policy, and only when the policy names both
    /// the targets and the selectors it allows (an open policy would let a session key do anything
    /// the account can, approving away every token included).
    function isSessionKey(bytes32 policyId, address sender, address signer) external view returns (bool) {
        if (!registry.isDelegate(policyId, sender, signer)) return false;
        Policy memory policy = registry.getPolicy(policyId);
        return policy.allowedTargets.length > 0 && policy.allowedSelectors.length > 0;
    }

    // ---- both modes ----

    /// @notice Makes one of `sender`'s nonces unusable in both modes. The sender calls it itself
    /// (or through the executor's `cancelNonce`).
    function cancelNonce(address sender, uint256 nonce) external {
        if (msg.sender != sender && msg.sender != executor) revert NotAllowedToWrite(msg.sender, sender);
        NonceState state = _nonceState(sender, nonce);
        if (state == NonceState.Used) revert ExecutionDenied(IntentStatus.NONCE_USED);
        if (state == NonceState.Unused) _setNonceState(sender, nonce, NonceState.Cancelled);
        emit NonceCancelled(sender, nonce);
    }

    function _nonceState(address sender, uint256 nonce) private view returns (NonceState) {
        return NonceState((nonceWords[sender][nonce >> 7] >> ((nonce & 127) << 1)) & 3);
    }

    /// @dev Only ever from Unused (both bits clear) to Used or Cancelled, never back: one OR.
    function _setNonceState(address sender, uint256 nonce, NonceState state) private {
        nonceWords[sender][nonce >> 7] |= uint256(state) << ((nonce & 127) << 1);
    }

    /// @dev Nonce, policy ownership, chain and time bounds: what does not depend on the calls.
    function _checkHeader(address sender, uint256 nonce, uint256 validAfter, uint256 validBefore, bytes32 policyId)
        private
        view
        returns (bytes1, Policy memory policy)
    {
        NonceState state = _nonceState(sender, nonce);
        if (state == NonceState.Used) return (IntentStatus.NONCE_USED, policy);
        if (state == NonceState.Cancelled) return (IntentStatus.REVOKED, policy);

        policy = registry.getPolicy(policyId);
        if (policy.owner == address(0) || policy.owner != sender) return (IntentStatus.DISALLOWED, policy);
        if (!_containsChain(policy.allowedChains, block.chainid)) return (IntentStatus.UNSUPPORTED_CHAIN, policy);

        // Time bounds follow EIP-3009: valid strictly after validAfter and strictly before validBefore.
        if (block.timestamp <= validAfter || block.timestamp <= policy.validAfter) return (IntentStatus.TOO_EARLY, policy);
        if (_expired(validBefore) || _expired(policy.validBefore)) return (IntentStatus.TOO_LATE, policy);
        return (IntentStatus.SUCCESS, policy);
    }

    /// @dev A call's target and selector. No intent may call this ledger, the executor or the
    /// registry, whatever its policy says: the executor may write any sender's records here, and
    /// an account calling the registry is the policy owner changing its own policy. In account mode
    /// neither the account itself (its ERC-7821 `execute` trusts self-calls) nor its delegate.
    function _checkCall(Policy memory policy, address target, bytes calldata data, bool accountMode, address sender)
        private
        view
        returns (bytes1)
    {
        if (target == address(this) || target == executor || target == address(registry)) return IntentStatus.DISALLOWED;
        if (accountMode && (target == sender || target == EIP7702Utils.fetchDelegate(sender))) return IntentStatus.DISALLOWED;
        if (!_allowsTarget(policy.allowedTargets, target)) return IntentStatus.DISALLOWED;
        if (!_allowsSelector(policy.allowedSelectors, data)) return IntentStatus.DISALLOWED;
        return IntentStatus.SUCCESS;
    }

    /// @dev `value` within the policy's caps per transaction and in aggregate. Written so that no
    /// value, however large, can overflow and turn the answer into a revert.
    function _withinLimits(Policy memory policy, bytes32 policyId, uint256 value) private view returns (bool) {
        if (value > policy.maxValuePerTx) return false;
        return value <= policy.maxAggregateValue && policySpent[policyId] <= policy.maxAggregateValue - value;
    }

    function _expired(uint256 validBefore) private view returns (bool) {
        return validBefore != 0 && block.timestamp >= validBefore;
    }

    function _containsChain(uint256[] memory list, uint256 item) private pure returns (bool) {
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
