// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice A target for demos and tests: counts calls, keeps the value it was sent, and can fail
/// on request so that the executor's ExecutionFailed path is exercised.
contract DemoCounter {
    uint256 public count;
    uint256 public received;

    event Incremented(address indexed caller, uint256 by, uint256 count, uint256 value);

    error Refused(string reason);

    function increment(uint256 by) external payable returns (uint256) {
        count += by;
        received += msg.value;
        emit Incremented(msg.sender, by, count, msg.value);
        return count;
    }

    function fail(string calldata reason) external pure {
        revert Refused(reason);
    }
}
