// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Policy} from "./IntentTypes.sol";

/// @notice Stores policies by id. A policy is created by its owner and changed or removed only by
/// its owner (who may hand it to a new owner by setting another `owner`).
contract PolicyRegistry {
    mapping(bytes32 => Policy) private policies;

    event PolicySet(bytes32 indexed policyId, address indexed owner);
    event PolicyRemoved(bytes32 indexed policyId);

    error NotPolicyOwner(bytes32 policyId, address caller);
    error InvalidPolicyOwner();
    error UnknownPolicy(bytes32 policyId);

    function setPolicy(bytes32 policyId, Policy calldata policy) external {
        address current = policies[policyId].owner;
        if (current == address(0)) {
            // Nobody may create a policy that spends someone else's deposit.
            if (policy.owner != msg.sender) revert InvalidPolicyOwner();
        } else {
            if (current != msg.sender) revert NotPolicyOwner(policyId, msg.sender);
            if (policy.owner == address(0)) revert InvalidPolicyOwner();
        }
        policies[policyId] = policy;
        emit PolicySet(policyId, policy.owner);
    }

    function removePolicy(bytes32 policyId) external {
        address current = policies[policyId].owner;
        if (current == address(0)) revert UnknownPolicy(policyId);
        if (current != msg.sender) revert NotPolicyOwner(policyId, msg.sender);
        delete policies[policyId];
        emit PolicyRemoved(policyId);
    }

    function getPolicy(bytes32 policyId) external view returns (Policy memory) {
        return policies[policyId];
    }

    function policyExists(bytes32 policyId) external view returns (bool) {
        return policies[policyId].owner != address(0);
    }
}
