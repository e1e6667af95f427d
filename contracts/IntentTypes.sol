// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The intent an agent asks the gateway to validate or execute. Field order is the ABI:
/// `keccak256(abi.encode(intent))` is the intent hash the gateway returns in X-Intent-Hash.
struct Intent {
    address sender;
    address target;
    bytes data;
    uint256 value;
    uint256 nonce;
    uint256 validAfter;
    uint256 validBefore;
    bytes32 policyId;
}

/// @notice One call of an account-mode batch. Field order is the ABI and the EIP-712 struct.
struct Call {
    address target;
    uint256 value;
    bytes data;
}

/// @notice An account-mode intent of 1 to 16 calls, run in order and atomically from the sender's
/// own address (EIP-7702). `keccak256(abi.encode(batch))` is its intent hash.
struct BatchIntent {
    address sender;
    Call[] calls;
    uint256 nonce;
    uint256 validAfter;
    uint256 validBefore;
    bytes32 policyId;
}

/// @notice A sender's standing authorisation: which calls may be made on its behalf, and how much
/// of its deposit they may spend. Zero bounds mean "no bound" for the time window; empty lists mean
/// "any" for targets, selectors and chains. The value caps are absolute (0 allows no value).
struct Policy {
    address owner;
    address[] allowedTargets;
    bytes4[] allowedSelectors;
    uint256 maxValuePerTx;
    uint256 maxAggregateValue;
    uint256 validAfter;
    uint256 validBefore;
    uint256[] allowedChains;
}

/// @notice The records both execution modes share (IntentLedger), as the executor also answers
/// them: spent and cancelled nonces, deposits and aggregate spending per policy.
interface IIntentLedger {
    function nonceUsed(address sender, uint256 nonce) external view returns (bool);
    function nonceCancelled(address sender, uint256 nonce) external view returns (bool);
    function deposits(address sender) external view returns (uint256);
    function policySpent(bytes32 policyId) external view returns (uint256);
}

/// @notice ERC-1066 status codes answered by the reference contracts.
library IntentStatus {
    bytes1 internal constant SUCCESS = 0x01;
    bytes1 internal constant DISALLOWED = 0x10;
    bytes1 internal constant EXECUTED = 0x11;
    bytes1 internal constant REVOKED = 0x16;
    bytes1 internal constant TOO_EARLY = 0x20;
    bytes1 internal constant TOO_LATE = 0x21;
    bytes1 internal constant NONCE_USED = 0x22;
    bytes1 internal constant TRANSFER_FAILED = 0x50;
    bytes1 internal constant TRANSFER_SUCCESSFUL = 0x51;
    bytes1 internal constant INSUFFICIENT_FUNDS = 0x54;
    bytes1 internal constant UNSUPPORTED_ACTION = 0xA1;
    bytes1 internal constant UNSUPPORTED_CHAIN = 0xA2;
    /// @dev A signature that is not the sender's (nor a delegate's of the intent's policy).
    bytes1 internal constant UNTRUSTED = 0xE4;
    /// @dev A relayed intent that carries no signature.
    bytes1 internal constant SIGNATURE_REQUIRED = 0xE5;

    /// @dev The codes that allow execution (the origin project's `isSuccess`).
    function isSuccess(bytes1 status) internal pure returns (bool) {
        return status == SUCCESS || status == EXECUTED || status == TRANSFER_SUCCESSFUL;
    }
}
