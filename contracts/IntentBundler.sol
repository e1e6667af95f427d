// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Runs a relayer's executions as one transaction (a bundle): one signature, one nonce and one
/// base fee for many calls, each the same call the relayer would otherwise send alone (an executor's
/// `executeSigned`, or an agent account's own entry point).
///
/// What a bundle must not do is let one call cost the others, or the relayer, more than that call's
/// own share. So:
/// - each call gets the gas limit the relayer gave it and no more: a call that burns all it can burns
///   its own limit, not the bundle's;
/// - a call that could not be given its whole limit is not made, and neither is any call after it
///   (each was simulated after the ones before it): the bundle says where it stopped (`LeftUnrun`), and
///   the relayer sends those calls again. A call starved by the bundle is never reported as its
///   intent's own failure;
/// - at most `REVERT_DATA_CAP` bytes of a failed call's revert data are copied, so a target that
///   reverts with megabytes costs the bundle nothing beyond that call's limit; a successful call's
///   return data is not copied at all (the executor's `IntentExecuted` already logs it);
/// - enough gas is kept back after each call to log it (`Ran`): every call the bundle made is in
///   its receipt, with the gas it used, whether the bundle ran out later or not.
///
/// A bundle's gas is not to be estimated: the least gas with which `run` succeeds is the gas that
/// makes no call at all. Give it each call's limit with `limit / 63 + CALL_RESERVE` on top, the
/// transaction's base cost and its calldata.
///
/// It has no owner, no storage and no funds (`run` takes no ETH): anyone may call it, and a call
/// through it can do only what its caller could do by calling each target itself. The targets see
/// this contract as `msg.sender`. Calls in one transaction share its transient storage (EIP-1153), as
/// the calls of any batch do.
contract IntentBundler {
    /// @param target the contract to call (no ETH is sent)
    /// @param gasLimit the most gas the call may use
    /// @param data its calldata
    struct Call {
        address target;
        uint256 gasLimit;
        bytes data;
    }

    /// @notice The most bytes of a failed call's revert data a `Ran` log carries. The executor's
    /// `ExecutionFailed(bytes1 status, bytes data)` keeps its status within the first 36 bytes.
    uint256 public constant REVERT_DATA_CAP = 1024;

    /// @notice Gas kept beyond a call's limit before it is made: the call's own cost (a cold account,
    /// 2,600) and its `Ran` log with a revert of `REVERT_DATA_CAP` bytes (~10,000), with room to spare.
    uint256 public constant CALL_RESERVE = 20_000;

    /// @notice Call `index` ran: `success` and the gas it used (the call's own, its calldata's copy
    /// included), and on failure the first `REVERT_DATA_CAP` bytes of its revert data.
    event Ran(uint256 index, bool success, uint256 gasUsed, bytes revertData);

    /// @notice The calls from `fromIndex` on were not made: too little gas was left to give call
    /// `fromIndex` its limit (`gasLeft` when it was checked).
    event LeftUnrun(uint256 fromIndex, uint256 gasLeft);

    /// @notice Makes `calls` in order, each with its own gas limit; returns how many were made.
    function run(Call[] calldata calls) external returns (uint256 made) {
        uint256 freeMemory;
        assembly ("memory-safe") {
            freeMemory := mload(0x40)
        }
        for (uint256 i; i < calls.length; ++i) {
            Call calldata c = calls[i];
            uint256 gasLimit = c.gasLimit;
            address target = c.target;
            bytes calldata data = c.data;
            uint256 before = gasleft();
            assembly ("memory-safe") {
                // The calldata at the free memory, which every call reuses (memory grows to the largest call, once).
                calldatacopy(freeMemory, data.offset, data.length)
            }
            // EIP-150: a call is given at most 63/64 of the gas left once its own cost is paid.
            if (gasleft() < gasLimit + gasLimit / 63 + CALL_RESERVE) {
                emit LeftUnrun(i, gasleft());
                return i;
            }
            bool success;
            assembly ("memory-safe") {
                success := call(gasLimit, target, 0, freeMemory, data.length, 0, 0)
            }
            uint256 gasUsed = before - gasleft();
            bytes memory revertData;
            if (!success) {
                assembly ("memory-safe") {
                    let size := returndatasize()
                    if gt(size, REVERT_DATA_CAP) {
                        size := REVERT_DATA_CAP
                    }
                    revertData := freeMemory
                    mstore(revertData, size)
                    returndatacopy(add(revertData, 0x20), 0, size)
                    mstore(0x40, add(add(revertData, 0x20), size))
                }
            }
            emit Ran(i, success, gasUsed, revertData);
            // What this call's log used is free again for the next.
            assembly ("memory-safe") {
                mstore(0x40, freeMemory)
            }
        }
        return calls.length;
    }
}
